import { Command } from 'commander';

/** `llmgw node-agent`: Runs on every GPU node: discovery, engine supervision, reports to inventory. */
export function buildCommand(): Command {
  return new Command('node-agent')
    .description('Runs on every GPU node: discovery, engine supervision, reports to inventory.')
    .option('--config <file>', 'YAML config file')
    .addHelpText('after', '\nThis role is a skeleton in this release; it will call this gRPC service (docs/wire-contracts.md):\n  llmgw.agent.v1.AgentService  proto/llmgw/agent/v1/agent.proto (dials out to inventory, mTLS, CN = node id)\nIts implementation lands in a later milestone (docs/roadmap.md).')
    .exitOverride();
}

export async function main(argv: string[]): Promise<number> {
  const cmd = buildCommand();
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (e: any) {
    return e.exitCode ?? 2;
  }
  process.stderr.write('llmgw node-agent: not implemented in this release; see docs/roadmap.md\n');
  return 3;
}
