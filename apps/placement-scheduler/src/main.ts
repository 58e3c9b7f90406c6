import { Command } from 'commander';

/** `llmgw placement-scheduler`: Catalog, placement, reconciler and the control admin API used by ctl. */
export function buildCommand(): Command {
  return new Command('placement-scheduler')
    .description('Catalog, placement, reconciler and the control admin API used by ctl.')
    .option('--config <file>', 'YAML config file')
    .addHelpText('after', '\nThis role is a skeleton in this release: its wire contract is in proto/llmgw/, and its implementation lands in a later milestone (docs/roadmap.md).')
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
