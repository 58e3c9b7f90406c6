import { LlmgwError } from '@llmgw/errors';
import { z } from 'zod';

/**
 * Size limits of a decoded request, checked before a handler reads it
 * (docs/security.md, "Bad input at the gRPC ports"): every string and every repeated or map
 * field has a bound, so work and memory per call stay proportional to what
 * the service means to accept, not to what a peer sends.
 */
export interface BoundsSpec {
  /** The longest string (characters) or bytes field, unless `fields` names it. */
  maxString: number;
  /** The most entries of a repeated field (of a map field: this, but at least 64), unless `fields` names it. */
  maxRepeated: number;
  /**
   * Per-field overrides by the field's own name (the decoded, camelCase one:
   * `shards`, `text`): `string` and/or `repeated`.
   */
  fields?: Readonly<Record<string, { string?: number; repeated?: number }>>;
}

/** Defaults for control-plane messages: ids, names, reasons, labels. */
export const DEFAULT_BOUNDS: BoundsSpec = { maxString: 4096, maxRepeated: 1024 };

/** An oversized field: its path (proto names, snake_case) and what is wrong, never the value. */
export interface Oversized {
  field: string;
  detail: string;
}

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The first field of `value` over its bound, or undefined when everything fits. */
export function findOversized(value: unknown, spec: BoundsSpec = DEFAULT_BOUNDS, path = ''): Oversized | undefined {
  const walk = (v: unknown, p: string, name: string, depth: number): Oversized | undefined => {
    const field = p || '(root)';
    if (depth > 32) return { field, detail: 'nested too deeply' };
    const own = spec.fields?.[name];
    if (typeof v === 'string' || v instanceof Uint8Array) {
      const max = own?.string ?? spec.maxString;
      return v.length > max ? { field, detail: `${v.length} ${typeof v === 'string' ? 'characters' : 'bytes'}; at most ${max} allowed` } : undefined;
    }
    if (Array.isArray(v)) {
      const max = own?.repeated ?? spec.maxRepeated;
      if (v.length > max) return { field, detail: `${v.length} entries; at most ${max} allowed` };
      for (let i = 0; i < v.length; i++) {
        const bad = walk(v[i], `${p}[${i}]`, name, depth + 1);
        if (bad) return bad;
      }
      return undefined;
    }
    if (v && typeof v === 'object') {
      // A map field decodes as a plain object whose keys are data: bound their number (never
      // below 64, the most fields a message of ours has) and their length.
      const keys = Object.keys(v);
      const max = Math.max(own?.repeated ?? spec.maxRepeated, 64);
      if (keys.length > max) return { field, detail: `${keys.length} entries; at most ${max} allowed` };
      for (const k of keys) {
        if (k.length > spec.maxString) return { field, detail: `a key of ${k.length} characters; at most ${spec.maxString} allowed` };
        const bad = walk((v as Record<string, unknown>)[k], p ? `${p}.${snake(k)}` : snake(k), k, depth + 1);
        if (bad) return bad;
      }
    }
    return undefined;
  };
  return walk(value, path, '', 0);
}

/** Throws INVALID_ARGUMENT naming the first oversized field (`findOversized`). */
export function assertBounded(value: unknown, spec: BoundsSpec = DEFAULT_BOUNDS, path = ''): void {
  const bad = findOversized(value, spec, path);
  if (bad) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${bad.field}: ${bad.detail}`);
}

/**
 * `schema` behind the bounds check: an oversized field fails with an issue
 * at its path (`unary` reports "<field>: N characters; at most M allowed"),
 * before `schema` parses anything.
 */
export function boundedSchema<T>(schema: z.ZodType<T>, spec: BoundsSpec = DEFAULT_BOUNDS): z.ZodType<T> {
  return z
    .any()
    .superRefine((v, ctx) => {
      const bad = findOversized(v, spec);
      if (bad) ctx.addIssue({ code: 'custom', path: [bad.field], message: bad.detail });
    })
    .pipe(schema) as unknown as z.ZodType<T>;
}
