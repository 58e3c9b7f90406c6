import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { codeForUpstreamStatus, LlmgwError, toHttpError, type ErrorCode } from '@llmgw/errors';
import { AttemptAbort, AttemptDeadlines, type AttemptTimeouts } from './attempt-deadlines';
import { SseUsageTap, usageFrom, type CapturedUsage } from './sse';

export interface AttemptInput {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  stream: boolean;
  /** Drop the usage chunk before it reaches the client (the router injected include_usage). */
  withholdUsage: boolean;
  agent: Dispatcher;
  timeouts: AttemptTimeouts;
  /** Whether the client is still there; the attempt ends when it leaves. */
  client: ClientPresence;
  /** How a stream that breaks after it started tells the client (sseErrorEvent). */
  errorEventStyle: SseErrorStyle;
  /** Extra response headers (x-llmgw-*), written with the first byte to the client. */
  responseHeaders: () => Record<string, string>;
  res: ServerResponse;
  /** Rewrites the answer on its way to the client (an external provider's: providers/response.ts). */
  rewrite?: ResponseRewrite;
  /** A stream's first bytes went to the client: no other attempt can follow this one. */
  answerStarted?: () => void;
}

/** Whether a request's client is still there (the request's context, stages/context.ts). */
export interface ClientPresence {
  readonly left: boolean;
  /** `fn` is called once when the client leaves; one watcher at a time, undefined stops watching. */
  watchLeave(fn: (() => void) | undefined): void;
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

function timeoutError(why: string): LlmgwError {
  return new LlmgwError('LLMGW_ERR_UPSTREAM_TIMEOUT', `upstream ${why.replace('_', ' ')} timeout`);
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
export function attempt(inp: AttemptInput): Promise<AttemptResult> {
  if (inp.client.left) return Promise.resolve({ kind: 'client_gone', endpointFault: false });
  return new Promise((resolve) => new UpstreamCall(inp, resolve).send());
}

/** An upstream URL as undici's dispatch takes it; the few distinct URLs (endpoint × API path) are parsed once. */
const targets = new Map<string, { origin: string; path: string }>();

function targetOf(url: string): { origin: string; path: string } {
  let t = targets.get(url);
  if (t === undefined) {
    const u = new URL(url);
    t = { origin: u.origin, path: `${u.pathname}${u.search}` };
    if (targets.size >= 1024) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/**
 * Node keeps a response's header block (`_header`) for as long as the response lives, as the tree
 * of strings its `+=` made (about 2 KiB for a streamed answer's headers); reading one character has
 * V8 flatten it in place into one string of about 0.6 KiB (docs/performance.md, "Memory per stream").
 */
function compactHeaderBlock(res: ServerResponse): void {
  const block = (res as unknown as { _header?: unknown })._header;
  if (typeof block === 'string') block.charCodeAt(0);
}

/** The response headers the attempt reads, out of undici's raw list (name, value, name, value…). */
function headerValues(raw: Buffer[]): { contentType?: string; retryAfter?: string } {
  const out: { contentType?: string; retryAfter?: string } = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const n = raw[i].length;
    if (n !== 12 && n !== 11) continue;
    const name = raw[i].toString('latin1').toLowerCase();
    if (name === 'content-type') out.contentType ??= raw[i + 1].toString('latin1');
    else if (name === 'retry-after') out.retryAfter ??= raw[i + 1].toString('latin1');
  }
  return out;
}

/**
 * One attempt as an undici dispatch handler: the answer's bytes come to its callbacks straight from
 * the connection — no response stream, async iterator, AbortController or promise per chunk, and
 * one object per attempt (docs/router.md, "Request lifecycle"). It takes the callbacks undici's own
 * `request()` takes (onConnect, onHeaders, onData, onComplete, onError): the newer controller form
 * wraps each request in a controller that keeps the raw response headers, and the socket's read
 * buffer they point into, for the whole of a stream (docs/performance.md, "Memory per stream").
 * Until a connection takes the request there is no abort function; an abort then answers at once,
 * and the request is dropped when it is dispatched.
 */
class UpstreamCall implements Dispatcher.DispatchHandler {
  private abortRequest: ((err?: Error) => void) | undefined;
  /** Why the attempt aborted the request itself (a limit, or the client left). */
  private why: AttemptAbort['why'] | undefined;
  private readonly t0 = performance.now();
  private readonly limits: AttemptDeadlines;
  /** waiting: no answer yet; refused: an error status, its body read up to `limit`; whole: a non-streamed answer; stream: SSE. */
  private phase: 'waiting' | 'refused' | 'whole' | 'stream' = 'waiting';
  private status = 0;
  private contentType = '';
  private retryAfter: string | undefined;
  private parts: Buffer[] = [];
  private size = 0;
  private limit = 0;
  private tap: SseUsageTap | undefined;
  private ttftMs: number | undefined;
  private wrote = false;
  private settled = false;

  constructor(
    private readonly inp: AttemptInput,
    private readonly resolve: (r: AttemptResult) => void,
  ) {
    this.limits = new AttemptDeadlines(inp.timeouts, this.t0, (why) => this.abort(why));
  }

  send(): void {
    const inp = this.inp;
    inp.client.watchLeave(() => this.abort('client'));
    try {
      const { origin, path } = targetOf(inp.url);
      inp.agent.dispatch({ origin, path, method: 'POST', headers: inp.headers, body: inp.body }, this);
    } catch (e) {
      this.failed(e);
    }
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortRequest = abort;
    if (this.why) abort(new AttemptAbort(this.why));
  }

  onHeaders(statusCode: number, raw: Buffer[]): boolean {
    // A 1xx is not the answer: its final headers follow.
    if (statusCode < 200) return true;
    this.status = statusCode;
    const headers = headerValues(raw);
    if (statusCode >= 400) {
      this.phase = 'refused';
      this.limit = statusCode === 503 || statusCode === 429 ? 4096 : 16_384;
      this.retryAfter = headers.retryAfter;
      return true;
    }
    this.contentType = headers.contentType ?? (this.inp.stream ? 'text/event-stream' : 'application/json');
    if (this.contentType.includes('text/event-stream')) {
      this.phase = 'stream';
      this.tap = withRewrite(new SseUsageTap(this.inp.withholdUsage), this.inp.rewrite);
      this.limits.startIdle();
    } else {
      // Non-streaming: the whole JSON answer, then one write.
      this.phase = 'whole';
      this.limits.firstByte();
      this.ttftMs = performance.now() - this.t0;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true;
    if (this.phase === 'stream') this.streamed(chunk);
    else {
      if (this.phase === 'whole' || this.size < this.limit) this.parts.push(chunk);
      this.size += chunk.length;
    }
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    if (this.phase === 'refused') return this.refused(this.refusalText());
    if (this.phase === 'whole') return this.answered();
    const res = this.inp.res;
    const rest = this.tap!.end();
    if (!this.wrote) {
      this.ttftMs = performance.now() - this.t0;
      res.writeHead(this.status, { ...this.inp.responseHeaders(), 'content-type': this.contentType, 'cache-control': 'no-cache' });
      this.wrote = true;
    }
    res.end(rest.length > 0 ? rest : undefined);
    this.settle({ kind: 'served', status: this.status, usage: this.tap!.usage, ttftMs: this.ttftMs, complete: true, endpointFault: false });
  }

  onError(e: Error): void {
    if (this.settled) return;
    // An error answer's body that could not be read: the answer is what its status says.
    if (this.phase === 'refused') return this.refused('');
    if (this.phase === 'stream') return this.streamFailed(e);
    const why = this.why;
    const ttftMs = this.ttftMs;
    if (why === 'client') return this.settle({ kind: 'client_gone', ttftMs, endpointFault: false });
    if (why) return this.settle({ kind: 'error', error: timeoutError(why), endpointFault: true });
    if (this.phase === 'waiting') return this.failed(e);
    // A non-streamed answer cut: nothing reached the client yet, so a lost connection is retried like a refused one.
    const code = connectionLost(e);
    if (code) return this.settle(lostConnection(code, e, 'the engine closed the connection before its answer was complete'));
    this.settle({ kind: 'error', error: new LlmgwError('LLMGW_ERR_UPSTREAM_ERROR', "the engine's answer could not be read"), endpointFault: true });
  }

  private abort(why: AttemptAbort['why']): void {
    if (this.settled || this.why) return;
    this.why = why;
    const reason = new AttemptAbort(why);
    // Not on a connection yet: answered now (onError), and dropped once dispatched (onConnect).
    if (this.abortRequest) this.abortRequest(reason);
    else this.onError(reason);
  }

  /** The request never got an answer. */
  private failed(e: unknown): void {
    const code = connectionLost(e);
    if (code) return this.settle(lostConnection(code, e, 'cannot reach the engine'));
    this.settle({
      kind: 'error',
      error: new LlmgwError('LLMGW_ERR_UPSTREAM_CONNECT', `upstream request failed: ${(e as Error).message}`, { cause: e }),
      endpointFault: true,
    });
  }

  private refusalText(): string {
    const parts = this.parts;
    return (parts.length === 1 ? parts[0] : Buffer.concat(parts)).toString('utf8').slice(0, this.limit);
  }

  /** An error status: 503 and 429 are retried elsewhere; any other is the answer. */
  private refused(text: string): void {
    const status = this.status;
    const err = normaliseUpstreamError(status, text);
    if (status !== 503 && status !== 429) return this.settle({ kind: 'error', error: err, endpointFault: status >= 500 });
    const ra = Number(this.retryAfter);
    const error = new LlmgwError('LLMGW_ERR_UPSTREAM_OVERLOADED', err.message, { retryAfterSeconds: Number.isFinite(ra) && ra > 0 ? ra : undefined });
    this.settle({ kind: 'retry', reason: status === 503 ? 'status_503' : 'status_429', error, endpointFault: true });
  }

  /** A non-streamed answer, whole: its usage read, then one write. */
  private answered(): void {
    const { inp, parts, ttftMs } = this;
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
    const res = inp.res;
    if (res.destroyed) return this.settle({ kind: 'client_gone', ttftMs, usage, endpointFault: false });
    res.writeHead(this.status, { ...inp.responseHeaders(), 'content-type': this.contentType, 'content-length': String(buf.length) });
    this.wrote = true;
    res.end(buf);
    this.settle({ kind: 'served', status: this.status, usage, ttftMs, complete: true, endpointFault: false });
  }

  /** One chunk of a stream: its complete events go to the client, the first with the headers. */
  private streamed(c: Buffer): void {
    const { limits, inp } = this;
    const res = inp.res;
    limits.chunk();
    if (!this.wrote) {
      limits.firstByte();
      this.ttftMs = performance.now() - this.t0;
      res.writeHead(this.status, { ...inp.responseHeaders(), 'content-type': this.contentType, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
      compactHeaderBlock(res);
      this.wrote = true;
      const out = this.tap!.push(c);
      // Headers go out with the first event in one write; alone only if the chunk held no complete event.
      if (out.length > 0) res.write(out);
      else res.flushHeaders();
      inp.answerStarted?.();
      return;
    }
    const out = this.tap!.push(c);
    if (out.length > 0 && !res.destroyed) res.write(out);
  }

  private streamFailed(e: Error): void {
    const { why, ttftMs, inp } = this;
    const usage = this.tap!.usage;
    if (why === 'client') return this.settle({ kind: 'client_gone', ttftMs, usage, endpointFault: false });
    if (!this.wrote) {
      if (why) return this.settle({ kind: 'error', error: timeoutError(why), endpointFault: true });
      // Headers came, no event did: nothing reached the client, so a lost connection is retried.
      const code = connectionLost(e);
      if (code) return this.settle(lostConnection(code, e, 'the engine closed the stream before its first event'));
      return this.settle({ kind: 'error', error: new LlmgwError('LLMGW_ERR_UPSTREAM_ERROR', "the engine's stream could not be read"), endpointFault: true });
    }
    // Mid-stream: the status is sent and part of the answer with it, so no retry. The client
    // gets an error event after the last complete event, then a properly ended stream.
    const cut: StreamCut =
      why === 'idle' || why === 'total'
        ? { reason: why === 'idle' ? 'idle_timeout' : 'total_timeout', error: timeoutError(why) }
        : { reason: 'upstream_closed', error: new LlmgwError('LLMGW_ERR_UPSTREAM_ERROR', 'the engine closed the stream before it finished') };
    if (inp.res.destroyed) return this.settle({ kind: 'client_gone', ttftMs, usage, endpointFault: false });
    inp.res.end(sseErrorEvent(cut.error, inp.errorEventStyle));
    this.settle({ kind: 'served', status: this.status, usage, ttftMs, complete: false, endpointFault: true, cut });
  }

  private settle(r: AttemptResult): void {
    if (this.settled) return;
    this.settled = true;
    this.limits.stop();
    this.inp.client.watchLeave(undefined);
    this.parts = [];
    this.resolve(r);
  }
}
