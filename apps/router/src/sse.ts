import { StringDecoder } from 'node:string_decoder';

/** Token usage as engines report it (OpenAI's `usage` object). */
export interface CapturedUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

const USAGE_RE = /"usage"\s*:\s*\{/;
const BOUNDARY_RE = /\r?\n\r?\n/g;

/** OpenAI's `usage` object: chat/completions/embeddings names, or the Responses API's (input/output tokens). */
export function usageFrom(u: any): CapturedUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  return {
    promptTokens: Number(u.prompt_tokens ?? u.input_tokens) || 0,
    completionTokens: Number(u.completion_tokens ?? u.output_tokens) || 0,
    cachedTokens: Number((u.prompt_tokens_details ?? u.input_tokens_details)?.cached_tokens) || 0,
  };
}

/**
 * Passes an upstream SSE byte stream through event by event, parsing only
 * events that carry a non-null `usage` object (chat and completions chunks,
 * and the Responses API's `response.completed`): their usage is captured, and
 * when `withhold` is set (the router injected include_usage for a client that
 * did not ask) a usage-only chunk is dropped and a usage field on a content
 * chunk is removed. Everything else is forwarded as the engine wrote it.
 */
export class SseUsageTap {
  usage?: CapturedUsage;
  /** Complete events seen (the first one marks time to first token). */
  events = 0;
  private pending = '';
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly withhold: boolean) {}

  /** Feeds one upstream chunk; returns what to write to the client now ('' for nothing). */
  push(chunk: Buffer): string {
    const text = this.pending + this.decoder.write(chunk);
    let last = -1;
    let lastLen = 0;
    BOUNDARY_RE.lastIndex = 0;
    for (let m = BOUNDARY_RE.exec(text); m; m = BOUNDARY_RE.exec(text)) {
      last = m.index;
      lastLen = m[0].length;
      this.events++;
    }
    if (last < 0) {
      this.pending = text;
      return '';
    }
    const complete = text.slice(0, last + lastLen);
    this.pending = text.slice(last + lastLen);
    return USAGE_RE.test(complete) ? this.rewrite(complete) : complete;
  }

  /** Flushes a trailing event without its blank line. */
  end(): string {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    if (!rest) return '';
    this.events++;
    return USAGE_RE.test(rest) ? this.rewrite(rest) : rest;
  }

  private rewrite(block: string): string {
    let out = '';
    let pos = 0;
    BOUNDARY_RE.lastIndex = 0;
    const parts: string[] = [];
    for (let m = BOUNDARY_RE.exec(block); m; m = BOUNDARY_RE.exec(block)) {
      parts.push(block.slice(pos, m.index + m[0].length));
      pos = m.index + m[0].length;
    }
    if (pos < block.length) parts.push(block.slice(pos));
    for (const ev of parts) out += USAGE_RE.test(ev) ? this.handleUsageEvent(ev) : ev;
    return out;
  }

  private handleUsageEvent(ev: string): string {
    const lines = ev.split(/\r?\n/);
    const idx = lines.findIndex((l) => l.startsWith('data:'));
    if (idx < 0) return ev;
    let obj: any;
    try {
      obj = JSON.parse(lines[idx].slice(5).trim());
    } catch {
      return ev;
    }
    // The Responses API reports usage inside the response object of its final `response.completed` event.
    const u = usageFrom(obj?.usage ?? obj?.response?.usage);
    if (u) this.usage = u;
    if (!this.withhold) return ev;
    if (Array.isArray(obj.choices) && obj.choices.length === 0) return '';
    delete obj.usage;
    lines[idx] = `data: ${JSON.stringify(obj)}`;
    return lines.join('\n');
  }
}
