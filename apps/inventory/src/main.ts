import { overrideListen } from '@llmgw/cli';
import { runCommandLine } from '@llmgw/service';
import { Command } from 'commander';
import { inventoryService } from './service';

export { start, inventoryService } from './service';
export type { StartOptions, RunningInventory, InventoryHandle } from './service';

/** Builds the `llmgw inventory` command line (exported for tests and the help reference). */
export function buildCommand(): Command {
  return new Command('inventory')
    .description(
      'The fleet-facing port (docs/inventory.md): node agents dial in over mTLS (llmgw.agent.v1.AgentService, CN = node id); ' +
        'node, GPU, fabric and shard state is rebuilt from what they report; llmgw.inventory.v1.InventoryService serves the ' +
        'placement-scheduler (watch, commands, logs, node intent), whose llmgw.control.v1.ControlService serves `llmgw ctl`.',
    )
    .option('-c, --config <file>', 'inventory config file (YAML); see docs/inventory.md')
    .option('--host <host>', 'internal gRPC and admin listen host')
    .option('--port <port>', 'internal gRPC port: InventoryService for the placement-scheduler (overrides listen; 0 = any)')
    .option('--agent-listen <addr>', 'fleet-facing port for agents, host:port (overrides agent_listen)')
    .option('--admin-port <port>', 'admin port for /metrics, /healthz, /readyz (overrides admin_listen; 0 = any)')
    .option('--redis-url <url>', 'Redis for several instances and durable cordon/drain intent (without it: one in-process instance)')
    .option('--redis-prefix <prefix>', 'Redis key prefix (default llmgw:)')
    .option('--instance-id <id>', "this instance's id (default hostname-pid-random)")
    .option('--agent-cert <file>', 'fleet port server certificate (PEM)')
    .option('--agent-key <file>', 'fleet port server key (PEM)')
    .option('--agent-ca <file>', 'CA that signs node certificates: mTLS, CN must equal the node id')
    .option('--insecure', 'allow plaintext (or TLS without client certificates) on a non-loopback address; a warning is logged')
    .option('--lost-after <duration>', 'unseen this long → Lost, e.g. 60s')
    .option('--log-level <level>', 'trace | debug | info | warn | error')
    .addHelpText(
      'after',
      `
Examples:
  llmgw inventory --agent-cert inv.crt --agent-key inv.key --agent-ca ca.crt --redis-url redis://127.0.0.1:6379
  llmgw inventory --port 7073 --agent-listen 127.0.0.1:7443      # plaintext: loopback only (a lab on one machine)

Agents dial agent_listen (default :7443); the placement-scheduler uses listen (default 127.0.0.1:7073).
\`llmgw ctl\` talks to the placement-scheduler's ControlService (127.0.0.1:7074), never to inventory.`,
    )
    .exitOverride();
}

interface Flags {
  config?: string;
  host?: string;
  port?: string;
  agentListen?: string;
  adminPort?: string;
  redisUrl?: string;
  redisPrefix?: string;
  instanceId?: string;
  agentCert?: string;
  agentKey?: string;
  agentCa?: string;
  insecure?: boolean;
  lostAfter?: string;
  logLevel?: string;
}

/** `llmgw inventory ...` */
export function main(argv: string[]): Promise<number> {
  return runCommandLine(argv, inventoryService(), {
    command: buildCommand(),
    apply(o: Flags, input) {
      if (o.port !== undefined || o.host !== undefined) input.listen = overrideListen(input.listen, '127.0.0.1:7073', o.host, o.port);
      if (o.adminPort !== undefined || o.host !== undefined) input.admin_listen = overrideListen(input.admin_listen, '127.0.0.1:9095', o.host, o.adminPort);
      if (o.agentListen) input.agent_listen = o.agentListen;
      if (o.redisUrl) input.redis = { ...(input.redis ?? {}), url: o.redisUrl };
      if (o.redisPrefix) input.redis = { ...(input.redis ?? {}), key_prefix: o.redisPrefix };
      if (o.instanceId) input.instance_id = o.instanceId;
      if (o.agentCert || o.agentKey || o.agentCa)
        input.agent_tls = {
          ...(input.agent_tls ?? {}),
          ...(o.agentCert ? { cert: o.agentCert } : {}),
          ...(o.agentKey ? { key: o.agentKey } : {}),
          ...(o.agentCa ? { client_ca: o.agentCa } : {}),
        };
      if (o.insecure) input.insecure = true;
      if (o.lostAfter) input.lost_after = o.lostAfter;
      if (o.logLevel) input.log_level = o.logLevel;
    },
  });
}
