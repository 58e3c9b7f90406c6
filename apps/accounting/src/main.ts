import { overrideListen, untilSignal } from '@llmgw/cli';
import { Command, CommanderError } from 'commander';
import { accountingConfigSchema, parseConfig, readConfigFile, type AccountingConfig } from '@llmgw/config';
import { start } from './server';

export { start } from './server';
export type { StartOptions, RunningAccounting } from './server';
export { ensureDemoTenant, type DemoTenant } from './bootstrap';

/** `llmgw accounting ...` */
export async function main(argv: string[]): Promise<number | void> {
  const program = new Command('llmgw accounting')
    .description('Tenancy, keys, limits, budgets and the usage ledger (plan §7.9): key resolution for routers, the tenancy admin API for `llmgw ctl`, and the usage batch writer.')
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
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = program.opts<{ config?: string; host?: string; port?: string; adminPort?: string; databaseUrl?: string; redisUrl?: string; keyPrefix?: string; consumer?: string; logLevel?: string }>();

  let cfg: AccountingConfig;
  try {
    const input: Record<string, any> = { ...((o.config ? readConfigFile(o.config) : {}) as Record<string, any>) };
    if (o.port !== undefined || o.host !== undefined) input.listen = overrideListen(input.listen, '127.0.0.1:7072', o.host, o.port);
    if (o.adminPort !== undefined || o.host !== undefined) input.admin_listen = overrideListen(input.admin_listen, '127.0.0.1:9094', o.host, o.adminPort);
    if (o.databaseUrl) input.database_url = o.databaseUrl;
    if (o.redisUrl) input.redis_url = o.redisUrl;
    if (o.keyPrefix) input.key_prefix = o.keyPrefix;
    if (o.consumer) input.ingest = { ...(input.ingest ?? {}), consumer: o.consumer };
    if (o.logLevel) input.log_level = o.logLevel;
    cfg = parseConfig(accountingConfigSchema, input, o.config ?? 'command line');
  } catch (e) {
    process.stderr.write(`llmgw accounting: ${(e as Error).message}\n`);
    return 2;
  }

  const running = await start({ config: cfg });
  await untilSignal(() => running.close());
  return 0;
}
