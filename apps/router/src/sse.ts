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

/** The end of the last event boundary (a blank line: `\n\n`, `\n\r\n`) in `buf`, or -1. */
function lastBoundaryEnd(buf: Buffer): number {
  const lf = buf.lastIndexOf(LFLF);
  const crlf = buf.lastIndexOf(LFCRLF);
  return Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 3);
}

/** Complete events in `buf` up to `end` (blank lines counted). */
function countEvents(buf: Buffer, end: number): number {
  let n = 0;
  for (let i = buf.indexOf(0x0a); i >= 0 && i < end; i = buf.indexOf(0x0a, i + 1)) {
    // A line feed that ends an empty line: the previous byte is a line feed, or CR after one.
    if (buf[i - 1] === 0x0a || (buf[i - 1] === 0x0d && buf[i - 2] === 0x0a)) n++;
  }
  return n;
}

/** True when `buf` holds `"usage"` followed by `:` and an object (not `null`): what USAGE_RE matches, on bytes. */
export function hasUsageObject(buf: Buffer): boolean {
  for (let i = buf.indexOf(USAGE_KEY); i >= 0; i = buf.indexOf(USAGE_KEY, i + USAGE_KEY.length)) {
    let j = i + USAGE_KEY.length;
    while (isSpace(buf[j])) j++;
    if (buf[j++] !== 0x3a) continue;
    while (isSpace(buf[j])) j++;
    if (buf[j] === 0x7b) return true;
  }
  return false;
}

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const USAGE_KEY = Buffer.from('"usage"');
const LFLF = Buffer.from('\n\n');
const LFCRLF = Buffer.from('\n\r\n');
const EMPTY = Buffer.alloc(0);

/**
 * Passes an upstream SSE byte stream through event by event, parsing only
 * events that carry a non-null `usage` object (chat and completions chunks,
 * and the Responses API's `response.completed`): their usage is captured, and
 * when `withhold` is set (the router injected include_usage for a client that
 * did not ask) a usage-only chunk is dropped and a usage field on a content
 * chunk is removed. Everything else is forwarded as the engine wrote it, as
 * bytes: a chunk of whole events goes out as the same Buffer, with no decoding,
 * copying or string built per chunk (docs/performance.md, "Memory per stream");
 * only the bytes after the last blank line wait for the next chunk.
 */
export class SseUsageTap {
  usage?: CapturedUsage;
  /** Complete events seen (the first one marks time to first token). */
  events = 0;
  /** Bytes after the last complete event, waiting for the rest of it. */
  private pending?: Buffer;

  constructor(private readonly withhold: boolean) {}

  /** Feeds one upstream chunk; returns what to write to the client now (empty for nothing). */
  push(chunk: Buffer): Buffer {
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const end = lastBoundaryEnd(buf);
    if (end < 0) {
      this.pending = buf;
      return EMPTY;
    }
    this.events += countEvents(buf, end);
    this.pending = end < buf.length ? buf.subarray(end) : undefined;
    const complete = end < buf.length ? buf.subarray(0, end) : buf;
    return hasUsageObject(complete) ? Buffer.from(this.rewrite(complete.toString('utf8'))) : complete;
  }

  /** Flushes a trailing event without its blank line. */
  end(): Buffer {
    const rest = this.pending;
    this.pending = undefined;
    if (!rest || rest.length === 0) return EMPTY;
    this.events++;
    return hasUsageObject(rest) ? Buffer.from(this.rewrite(rest.toString('utf8'))) : rest;
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
