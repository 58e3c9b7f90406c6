import { overrideListen } from '@llmgw/cli';
import { Command } from 'commander';
import { runCommandLine } from '@llmgw/service';
import { accountingService } from './server';

export { start, accountingService } from './server';
export type { StartOptions, RunningAccounting, AccountingHandle } from './server';
export { ensureDemoTenant, type DemoTenant } from './bootstrap';
export { ensureFirstAdmin } from './accounts/bootstrap';

interface Flags {
  config?: string;
  host?: string;
  port?: string;
  adminPort?: string;
  databaseUrl?: string;
  redisUrl?: string;
  keyPrefix?: string;
  consumer?: string;
  logLevel?: string;
}

/** Builds the `llmgw accounting` command line (exported for tests and the help reference). */
export function buildCommand(): Command {
  return new Command('llmgw accounting')
    .description(
      'Tenancy, keys, limits, budgets and the usage ledger (docs/accounting.md): key resolution for routers, the tenancy admin API for `llmgw ctl`, and the usage batch writer.',
    )
    .option('-c, --config <file>', 'accounting config file (YAML)')
    .option('--host <host>', 'gRPC and admin listen address')
    .option('--port <port>', 'gRPC port (overrides listen; 0 = any free port)')
    .option('--admin-port <port>', 'admin port for /metrics, /healthz, /readyz (overrides admin_listen; 0 = any)')
    .option('--database-url <url>', 'postgres://user@host/db, pglite:memory or pglite:<dir>')
    .option('--redis-url <url>', 'Redis for counters, the usage stream and key-cache invalidation (absent = in-process)')
    .option('--key-prefix <prefix>', 'prefix of every Redis key (default llmgw:)')
    .option('--consumer <name>', 'consumer name in the usage stream group (stable across restarts)')
    .option('--log-level <level>', 'trace | debug | info | warn | error')
    .addHelpText(
      'after',
      `
Examples:
  llmgw accounting --database-url pglite:./data/accounting --port 7072
  llmgw accounting --database-url postgres://postgres@127.0.0.1/llmgw --redis-url redis://127.0.0.1:6379

Then manage tenancy with:  llmgw ctl --accounting 127.0.0.1:7072 org create acme`,
    )
    .exitOverride();
}

/** `llmgw accounting ...` */
export function main(argv: string[]): Promise<number> {
  return runCommandLine(argv, accountingService(), {
    command: buildCommand(),
    usageStatus: 2,
    apply(o: Flags, input) {
      if (o.port !== undefined || o.host !== undefined) input.listen = overrideListen(input.listen, '127.0.0.1:7072', o.host, o.port);
      if (o.adminPort !== undefined || o.host !== undefined) input.admin_listen = overrideListen(input.admin_listen, '127.0.0.1:9094', o.host, o.adminPort);
      if (o.databaseUrl) input.database_url = o.databaseUrl;
      if (o.redisUrl) input.redis_url = o.redisUrl;
      if (o.keyPrefix) input.key_prefix = o.keyPrefix;
      if (o.consumer) input.ingest = { ...(input.ingest ?? {}), consumer: o.consumer };
      if (o.logLevel) input.log_level = o.logLevel;
    },
  });
}
