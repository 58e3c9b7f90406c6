/**
 * The one name rule (docs/accounting.md, "Names"): every name llmgw stores or
 * looks up — org, team, project and key names, ids given as references, bands
 * and routing profiles — is 1 to NAME_MAX_LENGTH characters with no control
 * characters (C0 including NUL, DEL, C1) and no line/paragraph separators or
 * bidirectional overrides, so a name can never rewrite an operator's terminal.
 */
export const NAME_MAX_LENGTH = 200;

/** Longest piece of caller input an error message repeats (DETAIL_MAX_LENGTH characters, then "…"). */
export const DETAIL_MAX_LENGTH = 64;

// C0 controls (NUL..US), DEL, C1 controls, U+2028/2029, bidi embeddings/overrides/isolates.
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * What is wrong with `value` as a name in `field`, or undefined when it is fine.
 * The message names the field and never repeats the value.
 */
export function nameProblem(value: unknown, field: string, opts: { max?: number; optional?: boolean } = {}): string | undefined {
  const max = opts.max ?? NAME_MAX_LENGTH;
  if (typeof value !== 'string') return `${field} must be a string`;
  if (value === '') return opts.optional ? undefined : `${field} is required`;
  if (value.length > max) return `${field} must be at most ${max} characters (got ${value.length})`;
  if (FORBIDDEN.test(value)) return `${field} must not contain control characters`;
  return undefined;
}

/** True when `value` is a valid name (see nameProblem). */
export function isValidName(value: unknown, opts: { max?: number } = {}): value is string {
  return nameProblem(value, 'name', opts) === undefined;
}

/**
 * Caller input made safe to repeat in an error message: at most `max`
 * characters, control characters shown as "?" (ASCII-safe, no terminal escapes).
 */
export function detailOf(value: unknown, max = DETAIL_MAX_LENGTH): string {
  const s = String(value);
  const cut = s.length > max ? s.slice(0, max) + '…' : s;
  return cut.replace(new RegExp(FORBIDDEN.source, 'g'), '?');
}
