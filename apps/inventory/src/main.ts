import { Command } from 'commander';

/** `llmgw inventory`: Fleet-facing port: agents dial in, node/GPU/fabric/shard state, shard command relay. */
export function buildCommand(): Command {
  return new Command('inventory')
    .description('Fleet-facing port: agents dial in, node/GPU/fabric/shard state, shard command relay.')
    .option('--config <file>', 'YAML config file')
    .addHelpText('after', '\nThis role is a skeleton in this release; it will implement these gRPC services (docs/wire-contracts.md):\n  llmgw.agent.v1.AgentService          proto/llmgw/agent/v1/agent.proto (fleet-facing port, mTLS: agents dial in)\n  llmgw.inventory.v1.InventoryService  proto/llmgw/inventory/v1/inventory.proto (called by placement-scheduler)\nIts implementation lands in a later milestone (docs/roadmap.md).')
    .exitOverride();
}

export async function main(argv: string[]): Promise<number> {
  const cmd = buildCommand();
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (e: any) {
    return e.exitCode ?? 2;
  }
  process.stderr.write('llmgw inventory: not implemented in this release; see docs/roadmap.md\n');
  return 3;
}
