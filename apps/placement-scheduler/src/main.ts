import { overrideListen } from '@llmgw/cli';
import { runCommandLine } from '@llmgw/service';
import { Command } from 'commander';
import { placementSchedulerService } from './service';

export { start, placementSchedulerService } from './service';
export type { PlacementSchedulerHandle } from './service';

/** Builds the `llmgw placement-scheduler` command line (exported for tests and the help reference). */
export function buildCommand(): Command {
  return new Command('placement-scheduler')
    .description(
      'Catalog, placement, reconciler and the control admin API (docs/placement.md): keeps the YAML catalog running on the GPUs it fits, ' +
        'watching the fleet through llmgw.inventory.v1.InventoryService and sending shard commands through it; publishes Ready ' +
        'replicas to the routers (Redis); serves llmgw.control.v1.ControlService for `llmgw ctl` (models, replicas, ' +
        'explain-placement, model target, and the node verbs it relays to inventory), the one owner of that API.',
    )
    .option('-c, --config <file>', 'placement-scheduler config file (YAML); see docs/placement.md')
    .option('--catalog <file>', 'the model catalog (YAML); see deploy/examples/catalog.yaml')
    .option('--inventory <addr>', "inventory's internal gRPC address (default 127.0.0.1:7073)")
    .option('--accounting <addr>', "accounting's gRPC address: operator actions go to its audit log (default: none, this log only)")
    .option('--host <host>', 'ControlService and admin listen host')
    .option('--port <port>', 'ControlService gRPC port (overrides listen; 0 = any)')
    .option('--admin-port <port>', 'admin port for /metrics, /healthz, /readyz (overrides admin_listen; 0 = any)')
    .option('--redis-url <url>', 'Redis for the leader lock, endpoint publication, catalog view, demand and targets')
    .option('--redis-prefix <prefix>', 'Redis key prefix (default llmgw:)')
    .option('--instance-id <id>', 'leader lock owner id (default hostname-pid-random)')
    .option('--log-level <level>', 'trace | debug | info | warn | error')
    .addHelpText(
      'after',
      `
Examples:
  llmgw placement-scheduler --catalog deploy/examples/catalog.yaml --inventory 127.0.0.1:7073 --accounting 127.0.0.1:7072 --redis-url redis://127.0.0.1:6379
  llmgw ctl --control 127.0.0.1:7074 explain-placement llama-3.3-70b

Routers read what it publishes with endpoint_source: { kind: redis } (same Redis, same prefix).`,
    )
    .exitOverride();
}

interface Flags {
  config?: string;
  catalog?: string;
  inventory?: string;
  accounting?: string;
  host?: string;
  port?: string;
  adminPort?: string;
  redisUrl?: string;
  redisPrefix?: string;
  instanceId?: string;
  logLevel?: string;
}

/** `llmgw placement-scheduler ...` */
export function main(argv: string[]): Promise<number> {
  return runCommandLine(argv, placementSchedulerService, {
    command: buildCommand(),
    apply(o: Flags, input) {
      if (o.catalog) input.catalog = o.catalog;
      if (o.inventory) input.inventory = { ...(input.inventory ?? {}), address: o.inventory };
      if (o.accounting) input.accounting = { ...(input.accounting ?? {}), address: o.accounting };
      if (o.port !== undefined || o.host !== undefined) input.listen = overrideListen(input.listen, '127.0.0.1:7074', o.host, o.port);
      if (o.adminPort !== undefined || o.host !== undefined) input.admin_listen = overrideListen(input.admin_listen, '127.0.0.1:9096', o.host, o.adminPort);
      if (o.redisUrl) input.redis = { ...(input.redis ?? {}), url: o.redisUrl };
      if (o.redisPrefix) input.redis = { ...(input.redis ?? {}), key_prefix: o.redisPrefix };
      if (o.instanceId) input.instance_id = o.instanceId;
      if (o.logLevel) input.log_level = o.logLevel;
    },
  });
}
