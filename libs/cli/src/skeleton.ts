import { Command, CommanderError } from 'commander';

export interface PlannedService {
  /** Fully qualified gRPC service, e.g. llmgw.agent.v1.AgentService. */
  service: string;
  /** Proto file and a note on who calls it. */
  where: string;
}

export interface SkeletonRole {
  buildCommand(): Command;
  main(argv: string[]): Promise<number>;
}

/** Exit status of a role that exists only as a contract in this release. */
export const EXIT_NOT_IMPLEMENTED = 3;

/**
 * A role whose wire contract is fixed but whose implementation lands in a
 * later round: `--help` says what it will serve, and starting it fails loudly
 * (exit 3) instead of pretending to run.
 */
export function skeletonRole(name: string, description: string, services: PlannedService[]): SkeletonRole {
  const width = Math.max(...services.map((s) => s.service.length));
  const buildCommand = () =>
    new Command(name)
      .description(description)
      .option('--config <file>', 'YAML config file')
      .addHelpText(
        'after',
        [
          '',
          'This role is a skeleton in this release; it will serve or call these gRPC services (docs/wire-contracts.md):',
          ...services.map((s) => `  ${s.service.padEnd(width)}  ${s.where}`),
          'Its implementation lands in a later milestone (docs/roadmap.md).',
        ].join('\n'),
      )
      .exitOverride();

  async function main(argv: string[]): Promise<number> {
    try {
      buildCommand().parse(argv, { from: 'user' });
    } catch (e) {
      return e instanceof CommanderError ? e.exitCode : 2;
    }
    process.stderr.write(`llmgw ${name}: not implemented in this release; see docs/roadmap.md\n`);
    return EXIT_NOT_IMPLEMENTED;
  }
  return { buildCommand, main };
}
