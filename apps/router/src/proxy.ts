import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { request, type Agent } from 'undici';
import { codeForUpstreamStatus, LlmgwError, toHttpError, type ErrorCode } from '@llmgw/errors';
import { SseUsageTap, usageFrom, type CapturedUsage } from './sse';

/** Timeouts for one upstream attempt (ms; 0 = none). */
export interface AttemptTimeouts {
  firstToken: number;
  total: number;
  idle: number;
}

export interface AttemptInput {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  stream: boolean;
  /** Drop the usage chunk before it reaches the client (the router injected include_usage). */
  withholdUsage: boolean;
  agent: Agent;
  timeouts: AttemptTimeouts;
  /** Aborted when the client goes away. */
  clientSignal: AbortSignal;
  /** How a stream that breaks after it started tells the client (sseErrorEvent). */
  errorEventStyle: SseErrorStyle;
  /** Extra response headers (x-llmgw-*), written with the first byte to the client. */
  responseHeaders: () => Record<string, string>;
  res: ServerResponse;
  /** Rewrites the answer on its way to the client (an external provider's: providers/response.ts). */
  rewrite?: ResponseRewrite;
}

/** What an answer's bytes go through before the client (after usage is captured and withheld). */
export interface ResponseRewrite {
  /** A whole (non-streamed) answer. */
  body(buf: Buffer): Buffer;
  /** Complete SSE events of a stream, as the usage tap passes them on. */
  events<T extends string | Buffer>(out: T): T;
}

/** The usage tap with `rw` applied to what it passes on (an external provider's answer). */
function withRewrite(tap: SseUsageTap, rw: ResponseRewrite | undefined): SseUsageTap {
  if (!rw) return tap;
  const push = tap.push.bind(tap);
  const end = tap.end.bind(tap);
  tap.push = (chunk) => rw.events(push(chunk));
  tap.end = () => rw.events(end());
  return tap;
}

/**
 * How one upstream attempt ended:
 * - `retry`: nothing reached the client, and the failure is retryable (connection error, 503, 429;
 *   docs/router.md) — try another endpoint.
 * - `error`: nothing reached the client; send this error.
 * - `served`: the response (or part of it) reached the client; `cut` says why a stream
 *   ended early (the client got an error event, then the end of the stream).
 * - `client_gone`: the client disconnected; upstream was aborted.
 */
export type AttemptResult =
  | { kind: 'retry'; reason: 'connect' | 'status_503' | 'status_429'; error: LlmgwError; endpointFault: true }
  | { kind: 'error'; error: LlmgwError; endpointFault: boolean }
  | { kind: 'served'; status: number; usage?: CapturedUsage; ttftMs?: number; complete: boolean; endpointFault: boolean; cut?: StreamCut }
  | { kind: 'client_gone'; ttftMs?: number; usage?: CapturedUsage; endpointFault: false };

/** Why a stream that had started reaching the client ended before the engine finished it. */
export interface StreamCut {
  reason: 'upstream_closed' | 'idle_timeout' | 'total_timeout';
  error: LlmgwError;
}

/** `chat`: chat and completions streams; `responses`: the Responses API's typed events. */
export type SseErrorStyle = 'chat' | 'responses';

/**
 * The last event of a stream that broke after it started, in OpenAI's shapes: chat and
 * completions streams carry `data: {"error":{…}}` (what OpenAI sends and its SDKs throw on);
 * the Responses API has its own `error` event type. No `[DONE]` follows.
 */
export function sseErrorEvent(e: LlmgwError, style: SseErrorStyle): string {
  const { body } = toHttpError(e);
  if (style === 'responses') {
    return `event: error\ndata: ${JSON.stringify({ type: 'error', code: body.error.code, message: body.error.message, param: body.error.param })}\n\n`;
  }
  return `data: ${JSON.stringify(body)}\n\n`;
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

function errCode(e: unknown): string | undefined {
  const err = e as { code?: string; cause?: { code?: string } };
  return err?.code ?? err?.cause?.code;
}

/** A failure of the connection itself (refused, reset, closed), as opposed to an answer. */
function connectionLost(e: unknown): string | undefined {
  const code = errCode(e);
  return code && CONNECT_CODES.has(code) ? code : undefined;
}

const lostConnection = (code: string, e: unknown, stage: string): AttemptResult => ({
  kind: 'retry',
  reason: 'connect',
  error: new LlmgwError('LLMGW_ERR_UPSTREAM_CONNECT', `${stage} (${code})`, { cause: e }),
  endpointFault: true,
});

/** Why `signal` was aborted by `attempt`, if it was. */
function abortedWhy(signal: AbortSignal): AttemptAbort['why'] | undefined {
  return signal.aborted ? (signal.reason as AttemptAbort).why : undefined;
}

function timeoutError(why: string): LlmgwError {
  return new LlmgwError('LLMGW_ERR_UPSTREAM_TIMEOUT', `upstream ${why.replace('_', ' ')} timeout`);
}

export class AttemptAbort extends Error {
  constructor(readonly why: 'first_token' | 'total' | 'idle' | 'client') {
    super(why);
  }
}

/**
 * An attempt's three limits — total, first token, idle (reset by every chunk) — on one timer
 * instead of three, and a chunk only notes its time instead of re-inserting a timer: per open
 * stream, two Timeout objects and their closures less, and no timer-list work per chunk
 * (docs/performance.md, "Memory per stream"). The timer fires at the earliest deadline known when
 * it was set; a chunk that came since moves the idle deadline, and the timer is set again for it.
 */
export class AttemptDeadlines {
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (Infinity: none armed). */
  private armedAt = Infinity;
  private readonly totalAt: number;
  private firstAt: number;
  /** Idle counts from the stream's headers, then from each chunk (Infinity: not yet). */
  private lastByteAt = Infinity;

  constructor(
    private readonly t: AttemptTimeouts,
    t0: number,
    private readonly abort: (why: AttemptAbort['why']) => void,
  ) {
    this.totalAt = t.total > 0 ? t0 + t.total : Infinity;
    this.firstAt = t.firstToken > 0 ? t0 + t.firstToken : Infinity;
    this.arm(t0);
  }

  /** The first byte of the answer came: the first-token limit is met. */
  firstByte(): void {
    this.firstAt = Infinity;
  }

  /** A stream's headers came: the idle limit starts counting. */
  startIdle(): void {
    if (this.t.idle <= 0) return;
    const now = performance.now();
    this.lastByteAt = now;
    if (now + this.t.idle < this.armedAt) this.arm(now);
  }

  chunk(): void {
    if (this.lastByteAt !== Infinity) this.lastByteAt = performance.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
  }

  private idleAt(): number {
    return this.t.idle > 0 ? this.lastByteAt + this.t.idle : Infinity;
  }

  private arm(now: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Math.min(this.totalAt, this.firstAt, this.idleAt());
    if (this.armedAt !== Infinity) this.timer = setTimeout(() => this.fire(), Math.max(1, this.armedAt - now));
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = performance.now();
    if (now >= this.totalAt) this.abort('total');
    else if (now >= this.firstAt) this.abort('first_token');
    else if (now >= this.idleAt()) this.abort('idle');
    // Early (a chunk moved the idle deadline, or the loop's clock ran behind): wait for the next one.
    else this.arm(now);
  }
}

/**
 * Passes `body`'s bytes to `onChunk` as they can be read (what arrived together in one chunk, as
 * `for await` did) and settles at its end; rejects on its error, on a close before its end, or when
 * `onChunk` throws (the body is destroyed then). Unlike `for await`, no async generator, no
 * stream-finished listeners and no promises per chunk for every open stream (docs/performance.md,
 * "Memory per stream").
 */
export function eachChunk(body: Readable, onChunk: (c: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (e?: Error) => {
      if (settled) return;
      settled = true;
      if (e) reject(e);
      else resolve();
    };
    const ended = () => (body.readableEnded ? undefined : prematureClose());
    if (body.destroyed) return settle(body.errored ?? ended());
    body.on('readable', () => {
      try {
        for (let c: Buffer | null; !settled && (c = body.read() as Buffer | null) !== null;) onChunk(c);
      } catch (e) {
        settle(e as Error);
        body.destroy();
      }
    });
    body.once('end', () => settle());
    // Kept after settling: an error emitted later has a listener.
    body.on('error', (e) => settle(e));
    body.once('close', () => settle(ended()));
  });
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** Reads at most `limit` bytes of an upstream error body. */
async function readLimited(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of body) {
    if (n < limit) parts.push(c);
    n += c.length;
  }
  return Buffer.concat(parts).toString('utf8').slice(0, limit);
}

const CONTEXT_LENGTH_RE = /maximum context length|context length exceeded|longer than the model's context length/i;

/** An upstream error body (OpenAI's, vLLM's, or text) normalised to a catalogue error. */
export function normaliseUpstreamError(status: number, text: string): LlmgwError {
  let message = text.trim().slice(0, 500) || `upstream returned HTTP ${status}`;
  let param: string | null = null;
  let engineCode: unknown;
  try {
    const j = JSON.parse(text);
    const e = j?.error ?? j;
    if (typeof e?.message === 'string') message = e.message;
    else if (typeof j?.detail === 'string') message = j.detail;
    if (typeof e?.param === 'string') param = e.param;
    engineCode = e?.code;
  } catch {
    /* not JSON: keep the text */
  }
  let code: ErrorCode = codeForUpstreamStatus(status);
  // A prompt too long for the model keeps its meaning: OpenAI and sim-engine say so in `code`,
  // vLLM (code: 400) and SGLang only in the message.
  if (status === 400 && (engineCode === 'context_length_exceeded' || CONTEXT_LENGTH_RE.test(message))) code = 'LLMGW_ERR_CONTEXT_LENGTH_EXCEEDED';
  return new LlmgwError(code, message, { param });
}

/**
 * Sends one request to one endpoint and, if it answers well, streams the
 * answer to the client. Nothing is written to the client before the first
 * upstream body byte, so until then every failure can still be retried or
 * turned into a clean error response.
 */
export async function attempt(inp: AttemptInput): Promise<AttemptResult> {
  const ac = new AbortController();
  const abort = (why: AttemptAbort['why']) => {
    if (!ac.signal.aborted) ac.abort(new AttemptAbort(why));
  };
  const onClient = () => abort('client');
  if (inp.clientSignal.aborted) return { kind: 'client_gone', endpointFault: false };
  inp.clientSignal.addEventListener('abort', onClient, { once: true });
  const t0 = performance.now();
  const limits = new AttemptDeadlines(inp.timeouts, t0, abort);
  let ttftMs: number | undefined;
  let wrote = false;
  const res = inp.res;
  const whyAborted = () => abortedWhy(ac.signal);

  try {
    let up;
    try {
      up = await request(inp.url, { method: 'POST', headers: inp.headers, body: inp.body, dispatcher: inp.agent, signal: ac.signal });
    } catch (e) {
      const why = whyAborted();
      if (why === 'client') return { kind: 'client_gone', endpointFault: false };
      if (why) return { kind: 'error', error: timeoutError(why), endpointFault: true };
      const code = connectionLost(e);
      if (code) return lostConnection(code, e, 'cannot reach the engine');
      return {
        kind: 'error',
        error: new LlmgwError('LLMGW_ERR_UPSTREAM_CONNECT', `upstream request failed: ${(e as Error).message}`, { cause: e }),
        endpointFault: true,
      };
    }

    if (up.statusCode === 503 || up.statusCode === 429) {
      const text = await readLimited(up.body, 4096).catch(() => '');
      const ra = Number(up.headers['retry-after']);
      const err = normaliseUpstreamError(up.statusCode, text);
      const error = new LlmgwError('LLMGW_ERR_UPSTREAM_OVERLOADED', err.message, { retryAfterSeconds: Number.isFinite(ra) && ra > 0 ? ra : undefined });
      return { kind: 'retry', reason: up.statusCode === 503 ? 'status_503' : 'status_429', error, endpointFault: true };
    }
    if (up.statusCode >= 400) {
      const text = await readLimited(up.body, 16_384).catch(() => '');
      return { kind: 'error', error: normaliseUpstreamError(up.statusCode, text), endpointFault: up.statusCode >= 500 };
    }

    const contentType = String(up.headers['content-type'] ?? (inp.stream ? 'text/event-stream' : 'application/json'));
    const isSse = contentType.includes('text/event-stream');

    if (!isSse) {
      // Non-streaming: the whole JSON answer, then one write.
      limits.firstByte();
      ttftMs = performance.now() - t0;
      const parts: Buffer[] = [];
      try {
        await eachChunk(up.body, (c) => parts.push(c));
      } catch (e) {
        // Nothing reached the client yet: a lost connection is retried like a refused one.
        const why = whyAborted();
        if (why === 'client') return { kind: 'client_gone', ttftMs, endpointFault: false };
        if (why) return { kind: 'error', error: timeoutError(why), endpointFault: true };
        const code = connectionLost(e);
        if (code) return lostConnection(code, e, 'the engine closed the connection before its answer was complete');
        return { kind: 'error', error: new LlmgwError('LLMGW_ERR_UPSTREAM_ERROR', "the engine's answer could not be read"), endpointFault: true };
      }
      const whole = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      const buf = inp.rewrite ? inp.rewrite.body(whole) : whole;
      let usage: CapturedUsage | undefined;
      if (buf.includes('"usage"')) {
        try {
          usage = usageFrom(JSON.parse(buf.toString('utf8')).usage);
        } catch {
          /* not JSON: pass through as is */
        }
      }
      if (res.destroyed) return { kind: 'client_gone', ttftMs, usage, endpointFault: false };
      res.writeHead(up.statusCode, { ...inp.responseHeaders(), 'content-type': contentType, 'content-length': String(buf.length) });
      wrote = true;
      res.end(buf);
      return { kind: 'served', status: up.statusCode, usage, ttftMs, complete: true, endpointFault: false };
    }

    const tap = withRewrite(new SseUsageTap(inp.withholdUsage), inp.rewrite);
    limits.startIdle();
    const status = up.statusCode;
    try {
      await eachChunk(up.body, (c) => {
        limits.chunk();
        if (!wrote) {
          limits.firstByte();
          ttftMs = performance.now() - t0;
          res.writeHead(status, { ...inp.responseHeaders(), 'content-type': contentType, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
          wrote = true;
          const out = tap.push(c);
          // Headers go out with the first event in one write; alone only if the chunk held no complete event.
          if (out.length > 0) res.write(out);
          else res.flushHeaders();
          return;
        }
        const out = tap.push(c);
        if (out.length > 0 && !res.destroyed) res.write(out);
      });
    } catch (e) {
      const why = whyAborted();
      if (why === 'client') return { kind: 'client_gone', ttftMs, usage: tap.usage, endpointFault: false };
      if (!wrote) {
        if (why) return { kind: 'error', error: timeoutError(why), endpointFault: true };
        // Headers came, no event did: nothing reached the client, so a lost connection is retried.
        const code = connectionLost(e);
        if (code) return lostConnection(code, e, 'the engine closed the stream before its first event');
        return { kind: 'error', error: new LlmgwError('LLMGW_ERR_UPSTREAM_ERROR', "the engine's stream could not be read"), endpointFault: true };
      }
      // Mid-stream: the status is sent and part of the answer with it, so no retry. The client
      // gets an error event after the last complete event, then a properly ended stream.
      const cut: StreamCut =
        why === 'idle' || why === 'total'
          ? { reason: why === 'idle' ? 'idle_timeout' : 'total_timeout', error: timeoutError(why) }
          : { reason: 'upstream_closed', error: new LlmgwError('LLMGW_ERR_UPSTREAM_ERROR', 'the engine closed the stream before it finished') };
      if (res.destroyed) return { kind: 'client_gone', ttftMs, usage: tap.usage, endpointFault: false };
      res.end(sseErrorEvent(cut.error, inp.errorEventStyle));
      return { kind: 'served', status: up.statusCode, usage: tap.usage, ttftMs, complete: false, endpointFault: true, cut };
    }
    const rest = tap.end();
    if (!wrote) {
      ttftMs = performance.now() - t0;
      res.writeHead(up.statusCode, { ...inp.responseHeaders(), 'content-type': contentType, 'cache-control': 'no-cache' });
      wrote = true;
    }
    res.end(rest.length > 0 ? rest : undefined);
    return { kind: 'served', status: up.statusCode, usage: tap.usage, ttftMs, complete: true, endpointFault: false };
  } finally {
    limits.stop();
    inp.clientSignal.removeEventListener('abort', onClient);
  }
}
