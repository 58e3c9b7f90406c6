import { Command } from 'commander';

/** `llmgw placement-scheduler`: Catalog, placement, reconciler and the control admin API used by ctl. */
export function buildCommand(): Command {
  return new Command('placement-scheduler')
    .description('Catalog, placement, reconciler and the control admin API used by ctl.')
    .option('--config <file>', 'YAML config file')
    .addHelpText('after', '\nThis role is a skeleton in this release; it will implement and call these gRPC services (docs/wire-contracts.md):\n  llmgw.control.v1.ControlService      proto/llmgw/control/v1/control.proto (serves: the admin API llmgw ctl uses)\n  llmgw.inventory.v1.InventoryService  proto/llmgw/inventory/v1/inventory.proto (calls: fleet watch, shard commands, logs)\nIts implementation lands in a later milestone (docs/roadmap.md).')
    .exitOverride();
}

export async function main(argv: string[]): Promise<number> {
  const cmd = buildCommand();
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (e: any) {
    return e.exitCode ?? 2;
  }
  process.stderr.write('llmgw placement-scheduler: not implemented in this release; see docs/roadmap.md\n');
  return 3;
}
