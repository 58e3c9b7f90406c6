import type { ResponseRewrite } from '../proxy';

/** Fields whose strings are generated text (chat, completions, the Responses API, tool calls). */
const TEXT_FIELDS = new Set(['content', 'text', 'delta', 'arguments', 'reasoning_content', 'refusal']);
const DATA_LINE = /^data:[ \t]?(.*)$/gm;

/**
 * An external provider's answer on its way to the client (docs/models.md,
 * "Providers"): the provider's name for the model is written back as the
 * catalog's wherever it appears as `"model": …`, and the generated text is
 * measured so the router can count tokens itself when the provider reports
 * no usage (about four characters a token, as the router's prompt estimate).
 */
export class ProviderResponse implements ResponseRewrite {
  private chars = 0;
  private readonly pattern: RegExp;
  private readonly replacement: string;

  constructor(providerModel: string, catalogModel: string) {
    this.pattern = new RegExp(`("model"\\s*:\\s*)${escapeRegExp(JSON.stringify(providerModel))}`, 'g');
    this.replacement = JSON.stringify(catalogModel);
  }

  body(buf: Buffer): Buffer {
    const text = buf.toString('utf8');
    this.measure(text);
    const out = this.rename(text);
    return out === text ? buf : Buffer.from(out);
  }

  /** Whole events (the usage tap never splits one), as text or bytes: the same kind comes back. */
  events<T extends string | Buffer>(out: T): T {
    if (out.length === 0) return out;
    const text = typeof out === 'string' ? out : out.toString('utf8');
    for (const m of text.matchAll(DATA_LINE)) if (m[1] !== '[DONE]') this.measure(m[1]);
    const renamed = this.rename(text);
    if (renamed === text) return out;
    return (typeof out === 'string' ? renamed : Buffer.from(renamed)) as T;
  }

  /** Completion tokens counted from the text that went through (used when the provider sent no usage). */
  get completionTokens(): number {
    return Math.ceil(this.chars / 4);
  }

  private rename(text: string): string {
    return text.replace(this.pattern, (_m, head: string) => head + this.replacement);
  }

  private measure(json: string): void {
    let obj: unknown;
    try {
      obj = JSON.parse(json);
    } catch {
      return;
    }
    // The Responses API's stream repeats its text in `….done` and `response.completed` events: only deltas count.
    const type = (obj as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && !type.endsWith('.delta')) return;
    this.chars += textLength(obj, undefined, 0);
  }
}

/** Characters of generated text in an answer object (strings under TEXT_FIELDS, anywhere but the echoed input). */
function textLength(v: unknown, key: string | undefined, depth: number): number {
  if (depth > 16) return 0;
  if (typeof v === 'string') return key !== undefined && TEXT_FIELDS.has(key) ? v.length : 0;
  if (!v || typeof v !== 'object') return 0;
  let n = 0;
  if (Array.isArray(v)) for (const x of v) n += textLength(x, key, depth + 1);
  else for (const [k, x] of Object.entries(v)) if (k !== 'usage' && k !== 'instructions' && k !== 'input') n += textLength(x, k, depth + 1);
  return n;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
