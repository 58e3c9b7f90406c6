import type { z } from 'zod';

/**
 * Parses a JSON string with `schema`: the value, or why it is not one (every
 * issue, `path: message`). For records read from outside the process (Redis
 * hashes, streams, channels), which are logged and skipped when they fail.
 */
export function parseJson<T>(schema: z.ZodType<T>, json: string): { ok: true; value: T } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message}` };
  }
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') };
}
