import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ENGINE_DIALECTS } from '@llmgw/contracts';

/** Every problem with a config, reported together, each with its path. */
export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly issues: string[],
  ) {
    super(`invalid configuration in ${source}:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "250ms", "2s", "1.5m", "1h", "7d" or a bare number of milliseconds. */
export function parseDurationMs(v: string | number): number {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) throw new Error(`invalid duration ${v}`);
    return v;
  }
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(v.trim());
  if (!m) throw new Error(`invalid duration "${v}" (use e.g. 250ms, 2s, 5m, 1h)`);
  return Math.round(parseFloat(m[1]) * UNITS[m[2] ?? 'ms']);
}

/** A zod type accepting a duration string or milliseconds, producing milliseconds. */
export const duration = () =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    try {
      return parseDurationMs(v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  });

/** A listen address: "host:port", ":port" or "port" (0 = any free port). */
export const listenAddress = () =>
  z
    .string()
    .regex(/^(?:(?:\[[0-9A-Fa-f:.]+\]|[^\s:\[\]]*|[0-9A-Fa-f:]+):)?\d{1,5}$/, 'must be host:port, :port or port')
    .refine((s) => Number(/(\d+)$/.exec(s)?.[1] ?? 0) <= 65535, 'port must be 0–65535');

/** Every service's `log_level`. */
export const logLevel = () => z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info');

export const engineKind = z.enum(ENGINE_DIALECTS);

/**
 * `engine_metrics`: per engine, contract field (running, waiting, kvUsage, …)
 * → metric name(s); null = the engine has no such metric.
 */
export const engineMetricOverrides = () => z.partialRecord(engineKind, z.record(z.string(), z.union([z.string(), z.array(z.string()), z.null()]))).default({});

export function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}

/** Validates raw config against a strict schema; all issues in one error; the result is frozen. */
export function parseConfig<S extends z.ZodType>(schema: S, raw: unknown, source = 'config'): z.output<S> {
  const r = schema.safeParse(raw ?? {});
  if (!r.success) {
    throw new ConfigError(
      source,
      r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`),
    );
  }
  return deepFreeze(r.data);
}

/** Reads a YAML (or JSON) file; a missing or unparsable file is a ConfigError. */
export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(path, [`cannot read file: ${(e as Error).message}`]);
  }
  try {
    return parseYaml(text);
  } catch (e) {
    throw new ConfigError(path, [`not valid YAML: ${(e as Error).message}`]);
  }
}

/** Reads and validates a config file in one step. */
export function loadConfigFile<S extends z.ZodType>(schema: S, path: string): z.output<S> {
  return parseConfig(schema, readConfigFile(path), path);
}
