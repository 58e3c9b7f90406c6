import { overrideListen } from '@llmgw/cli';
import { Command } from 'commander';
import { endpointFlagsToConfig } from '@llmgw/endpoints';
import { runCommandLine } from '@llmgw/service';
import { admissionService } from './service';

export { start, admissionService } from './service';
export type { StartOptions, RunningAdmission, AdmissionHandle } from './service';

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

interface Flags {
  config?: string;
  endpoint: string[];
  host?: string;
  port?: string;
  adminPort?: string;
  redisUrl?: string;
  instanceId?: string;
  lockTtl?: string;
  routerTtl?: string;
  scrapeInterval?: string;
  logLevel?: string;
}

/** Builds the `llmgw admission` command line (exported for tests and the help reference). */
export function buildCommand(): Command {
  return new Command('llmgw admission')
    .description(
      'The admission service: band queues, saturation, tenant fairness and leases for every router (docs/admission.md). One instance leads (leader lock); others stand by.',
    )
    .option('-c, --config <file>', 'admission config file (YAML); see deploy/examples/admission.yaml')
    .option(
      '--endpoint <spec>',
      'a static endpoint to scrape, repeatable: name=url=model[,engine=vllm|sglang|llamacpp][,pool=P][,weight=W][,priority=N]',
      collect,
      [],
    )
    .option('--host <host>', 'gRPC and admin listen address')
    .option('--port <port>', 'gRPC port (overrides listen; 0 = any free port)')
    .option('--admin-port <port>', 'admin port for /metrics, /healthz, /readyz (overrides admin_listen; 0 = any)')
    .option('--redis-url <url>', 'Redis for the leader lock (without it the lock is in-process: one instance only)')
    .option('--instance-id <id>', 'leader lock owner id (default hostname-pid-random)')
    .option('--lock-ttl <duration>', 'leader lock TTL, e.g. 5s: the longest a failover takes')
    .option('--router-ttl <duration>', 'a router silent this long loses its leases, e.g. 15s')
    .option('--scrape-interval <duration>', 'engine /metrics scrape period, e.g. 1s')
    .option('--log-level <level>', 'trace | debug | info | warn | error')
    .addHelpText(
      'after',
      `
Examples:
  llmgw admission --endpoint a=http://127.0.0.1:8001=llama --port 7070 --admin-port 9091
  llmgw admission --config deploy/examples/admission.yaml --redis-url redis://127.0.0.1:6379

Routers use it with (router config):
  admission: { mode: remote, address: "127.0.0.1:7070,127.0.0.1:7071" }`,
    )
    .exitOverride();
}

/** `llmgw admission ...` */
export function main(argv: string[]): Promise<number> {
  return runCommandLine(argv, admissionService(), {
    command: buildCommand(),
    apply(o: Flags, input) {
      if (o.endpoint.length) input.endpoints = [...(input.endpoints ?? []), ...endpointFlagsToConfig(o.endpoint)];
      if (o.port !== undefined || o.host !== undefined) input.listen = overrideListen(input.listen, '127.0.0.1:7070', o.host, o.port);
      if (o.adminPort !== undefined || o.host !== undefined) input.admin_listen = overrideListen(input.admin_listen, '127.0.0.1:9091', o.host, o.adminPort);
      if (o.redisUrl || o.lockTtl)
        input.leader = { ...(input.leader ?? {}), ...(o.redisUrl ? { redis_url: o.redisUrl } : {}), ...(o.lockTtl ? { lock_ttl: o.lockTtl } : {}) };
      if (o.instanceId) input.instance_id = o.instanceId;
      if (o.routerTtl) input.router_ttl = o.routerTtl;
      if (o.scrapeInterval) input.scrape_interval = o.scrapeInterval;
      if (o.logLevel) input.log_level = o.logLevel;
    },
  });
}
