import type { Command } from 'commander';

/** Every leaf command takes --json (machine-readable output on stdout). */
export function withJson(cmd: Command): Command {
  return cmd.option('--json', 'print JSON instead of text');
}
