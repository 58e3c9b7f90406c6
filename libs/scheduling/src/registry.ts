import type { z } from 'zod';
import { SchedulingConfigError, zodIssues } from './errors';
import type { Filter, Picker, Scorer } from './types';

export type PluginKind = 'filter' | 'scorer' | 'picker';

interface PluginByKind {
  filter: Filter;
  scorer: Scorer;
  picker: Picker;
}

/**
 * Makes one plugin instance. `params` is whatever the configuration gave
 * (undefined when nothing): the factory owns its parameter schema and must
 * reject unknown or out-of-range parameters (use `parsePluginParams`).
 */
export interface PluginFactory<K extends PluginKind = PluginKind> {
  kind: K;
  /** One line for docs and error messages. */
  description: string;
  create(name: string, params: unknown): PluginByKind[K];
}

/**
 * Plugin factories by type (`<what>-<role>`: `queue-scorer`, `p2c-picker`,
 * `draining-filter`). Not global: each router builds its own, usually from
 * `createDefaultRegistry()`, and may register more.
 */
export class PluginRegistry {
  private readonly factories = new Map<string, PluginFactory>();

  register<K extends PluginKind>(type: string, factory: PluginFactory<K>): this {
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(type)) throw new Error(`plugin type '${type}' must be kebab-case`);
    if (!type.endsWith(`-${factory.kind}`)) {
      throw new Error(`plugin type '${type}' must end with '-${factory.kind}' (it is a ${factory.kind})`);
    }
    if (this.factories.has(type)) throw new Error(`plugin type '${type}' is already registered`);
    this.factories.set(type, factory as PluginFactory);
    return this;
  }

  has(type: string): boolean {
    return this.factories.has(type);
  }

  /** Registered types of one kind, sorted. */
  types(kind?: PluginKind): string[] {
    return [...this.factories.entries()]
      .filter(([, f]) => kind === undefined || f.kind === kind)
      .map(([t]) => t)
      .sort();
  }

  describe(type: string): string | undefined {
    return this.factories.get(type)?.description;
  }

  /** Builds one instance; throws SchedulingConfigError for an unknown type or bad params. */
  create<K extends PluginKind>(kind: K, type: string, name: string, params?: unknown): PluginByKind[K] {
    const f = this.factories.get(type);
    if (!f || f.kind !== kind) {
      throw new SchedulingConfigError([`unknown ${kind} type '${type}' (known: ${this.types(kind).join(', ') || 'none'})`]);
    }
    return f.create(name, params) as PluginByKind[K];
  }
}

/**
 * Parses a plugin's params with its strict zod schema; undefined means `{}`.
 * Throws SchedulingConfigError naming the plugin and every bad parameter.
 */
export function parsePluginParams<S extends z.ZodType>(type: string, name: string, schema: S, params: unknown): z.output<S> {
  const r = schema.safeParse(params ?? {});
  if (!r.success) throw new SchedulingConfigError(zodIssues(`${type} '${name}' params`, r.error));
  return r.data;
}
