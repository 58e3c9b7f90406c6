import { CommanderError, type Command } from 'commander';
import type { z } from 'zod';
import { parseConfig, readConfigFile } from '@llmgw/config';
import { runService, type ServiceDefinition } from './host';

/** How `llmgw <role>`'s command line becomes the service's config. */
export interface ServiceCommandLine<S extends z.ZodType, O> {
  /** The role's command, built with `exitOverride()`; `-c, --config <file>` (when it has one) names a YAML file. */
  command: Command;
  /**
   * Lays the parsed flags over the config file's content (`input`, a fresh
   * copy; `{}` without a file). Throws on a bad flag value (message on
   * stderr, exit status 2).
   */
  apply(flags: O, input: Record<string, any>): void;
  /** A check of the parsed config beyond its schema; a returned string is the error (exit status 2). */
  check?(config: z.output<S>): string | undefined;
  /** Exit status for a command-line usage error; default commander's own (1). */
  usageStatus?: number;
  /** Errors thrown while starting that mean "bad configuration" (exit status 2) besides ConfigError. */
  configErrors?: Array<new (...a: any[]) => Error>;
}

/**
 * `llmgw <role> ...`: parses the command line, reads `--config`, applies the
 * flags, parses and freezes the config once, then runs the service until
 * SIGTERM/SIGINT (runService). Exit status: 0 after a clean stop or `--help`,
 * 2 for a bad flag or config (the message on stderr, prefixed `llmgw <role>:`).
 */
export async function runCommandLine<S extends z.ZodType, H, O extends { config?: string }>(
  argv: string[],
  def: ServiceDefinition<S, H>,
  cl: ServiceCommandLine<S, O>,
): Promise<number> {
  const program = cl.command;
  program.configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : (cl.usageStatus ?? e.exitCode);
    throw e;
  }
  const flags = program.opts<O>();
  const source = flags.config ?? 'command line';
  let config: z.output<S>;
  try {
    const input: Record<string, any> = { ...((flags.config ? readConfigFile(flags.config) : {}) as Record<string, any>) };
    cl.apply(flags, input);
    config = parseConfig(def.schema, input, source);
    const problem = cl.check?.(config);
    if (problem) throw new Error(problem);
  } catch (e) {
    process.stderr.write(`llmgw ${def.name}: ${(e as Error).message}\n`);
    return 2;
  }
  return runService(def, { config, configSource: source, configErrors: cl.configErrors });
}
