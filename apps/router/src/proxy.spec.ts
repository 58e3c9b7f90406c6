import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { LlmgwError } from '@llmgw/errors';
import { waitUntil } from '@llmgw/testing';
import { AttemptDeadlines } from './attempt-deadlines';
import { attempt, normaliseUpstreamError, sseErrorEvent, type AttemptResult, type SseErrorStyle } from './proxy';

describe('normaliseUpstreamError', () => {
  it.each([
    [400, '{"error":{"message":"bad temp","type":"BadRequestError","param":"temperature"}}', 'LLMGW_ERR_REQUEST_INVALID', 'bad temp', 'temperature'],
    [422, '{"detail":"field required"}', 'LLMGW_ERR_REQUEST_INVALID', 'field required', null],
    [404, '{"message":"The model `x` does not exist."}', 'LLMGW_ERR_MODEL_NOT_FOUND', 'The model `x` does not exist.', null],
    [500, 'Internal Server Error', 'LLMGW_ERR_UPSTREAM_ERROR', 'Internal Server Error', null],
    [504, '', 'LLMGW_ERR_UPSTREAM_TIMEOUT', 'upstream returned HTTP 504', null],
    // vLLM: the HTTP status as `code`, the meaning only in the message.
    [
      400,
      '{"error":{"message":"This model\'s maximum context length is 2048 tokens. However, you requested 4000 tokens.","type":"BadRequestError","param":null,"code":400}}',
      'LLMGW_ERR_CONTEXT_LENGTH_EXCEEDED',
      "This model's maximum context length is 2048 tokens. However, you requested 4000 tokens.",
      null,
    ],
    // OpenAI and sim-engine: the code itself.
    [
      400,
      '{"error":{"message":"too long","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
      'LLMGW_ERR_CONTEXT_LENGTH_EXCEEDED',
      'too long',
      'messages',
    ],
  ])('%i %s', (status, body, code, message, param) => {
    const e = normaliseUpstreamError(status, body);
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
    expect(e.param ?? null).toBe(param);
  });
});

describe('sseErrorEvent', () => {
  const err = new LlmgwError('LLMGW_ERR_UPSTREAM_ERROR', 'the engine closed the stream before it finished');
  it('chat and completions: a data event with OpenAI error JSON, as OpenAI sends and its SDKs throw on', () => {
    const ev = sseErrorEvent(err, 'chat');
    expect(ev.endsWith('\n\n')).toBe(true);
    expect(ev.startsWith('data: ')).toBe(true);
    expect(JSON.parse(ev.slice(6))).toEqual({
      error: {
        message: 'the engine closed the stream before it finished',
        type: 'server_error',
        param: null,
        code: 'upstream_error',
        llmgw_code: 'LLMGW_ERR_UPSTREAM_ERROR',
      },
    });
  });
  it('the Responses API: its typed error event', () => {
    const [event, data] = sseErrorEvent(err, 'responses').trimEnd().split('\n');
    expect(event).toBe('event: error');
    expect(JSON.parse(data.slice(6))).toEqual({
      type: 'error',
      code: 'upstream_error',
      message: 'the engine closed the stream before it finished',
      param: null,
    });
  });
});

/**
 * attempt() between a real client and a real upstream: a server whose handler runs one
 * attempt against `upstream` and records its result, and a raw read of what the client got.
 */
describe('attempt: a connection lost on the way', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });
  const agent = new Agent({ keepAliveTimeout: 1000 });
  afterAll(() => agent.close());

  async function listen(handler: http.RequestListener): Promise<string> {
    const srv = http.createServer(handler);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => (srv.closeAllConnections(), srv.close(() => r()))));
    return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  }

  /** Runs one attempt against an upstream that behaves as `upstream` says; returns the result and the client's view. */
  async function run(upstream: (res: http.ServerResponse) => void, opts: { stream?: boolean; style?: SseErrorStyle; idle?: number } = {}) {
    const up = await listen((req, res) => {
      req.resume();
      req.on('end', () => upstream(res));
    });
    let result: AttemptResult | undefined;
    let started = 0;
    const front = await listen((req, res) => {
      void attempt({
        url: `${up}/v1/chat/completions`,
        body: Buffer.from('{}'),
        headers: { 'content-type': 'application/json' },
        stream: opts.stream ?? true,
        withholdUsage: false,
        agent,
        timeouts: { firstToken: 0, total: 0, idle: opts.idle ?? 0 },
        client: { left: false, watchLeave: () => undefined },
        errorEventStyle: opts.style ?? 'chat',
        responseHeaders: () => ({}),
        res,
        answerStarted: () => started++,
      }).then((r) => {
        result = r;
        // Nothing was written for these: the caller (the attempt stage) would retry or answer.
        if (!res.headersSent) res.writeHead(599).end();
      });
    });
    const res = await fetch(front, { method: 'POST', body: '{}' });
    const text = await res.text(); // rejects if the stream is not ended properly
    await waitUntil(() => result !== undefined, 'the attempt result');
    return { result: result!, status: res.status, text, started };
  }

  const event = (content: string) => `data: {"choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`;

  it('a stream cut after it started: the events so far, an OpenAI error event, then a properly ended stream; no retry', async () => {
    const { result, status, text, started } = await run((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // One whole event and half of the next: the half is never passed on.
      res.write(event('par') + 'data: {"choices":[{"ind');
      setImmediate(() => res.socket?.destroy());
    });
    expect(status).toBe(200);
    const events = text.split('\n\n').filter(Boolean);
    expect(events[0]).toBe(event('par').trim());
    expect(JSON.parse(events[1].slice(6)).error).toMatchObject({ code: 'upstream_error', type: 'server_error' });
    expect(events).toHaveLength(2);
    expect(result).toMatchObject({ kind: 'served', status: 200, complete: false, endpointFault: true, cut: { reason: 'upstream_closed' } });
    // The answer had started: the caller may let the prompt go (no other attempt follows).
    expect(started).toBe(1);
  });

  it('a Responses API stream cut: its typed error event', async () => {
    const { text, result } = await run(
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: response.created\ndata: {"type":"response.created"}\n\n');
        setImmediate(() => res.socket?.destroy());
      },
      { style: 'responses' },
    );
    expect(text).toMatch(/\n\nevent: error\ndata: \{"type":"error","code":"upstream_error",.*\}\n\n$/);
    expect(result.kind).toBe('served');
  });

  it('a stream gone idle: the error event says upstream_timeout', async () => {
    const { text, result } = await run(
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(event('a')); // and nothing more: only the idle timeout ends this
      },
      { idle: 100 },
    );
    expect(text.endsWith('\n\n')).toBe(true);
    expect(JSON.parse(text.trim().split('\n\n').pop()!.slice(6)).error.code).toBe('upstream_timeout');
    expect(result).toMatchObject({ kind: 'served', cut: { reason: 'idle_timeout' } });
  });

  it('headers, then the connection lost before the first event: nothing reached the client, so it is a retry', async () => {
    const { result, status, started } = await run((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      setImmediate(() => res.socket?.destroy());
    });
    expect(status).toBe(599);
    expect(result).toMatchObject({ kind: 'retry', reason: 'connect', endpointFault: true });
    expect(started).toBe(0);
  });

  it('a non-streaming answer cut mid-body: nothing reached the client, so it is a retry (it used to escape as an exception)', async () => {
    const { result, status } = await run(
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"id":"x","choices":[');
        setImmediate(() => res.socket?.destroy());
      },
      { stream: false },
    );
    expect(status).toBe(599);
    expect(result).toMatchObject({ kind: 'retry', reason: 'connect', endpointFault: true });
    expect((result as { error: LlmgwError }).error.code).toBe('LLMGW_ERR_UPSTREAM_CONNECT');
  });

  /** A client that can be made to leave, as the request's context is. */
  function presence() {
    let watcher: (() => void) | undefined;
    const p = {
      left: false,
      watchLeave: (fn: (() => void) | undefined) => (watcher = fn),
      leave: () => {
        p.left = true;
        watcher?.();
      },
      watching: () => watcher !== undefined,
    };
    return p;
  }

  const input = (url: string, client: ReturnType<typeof presence>, res: http.ServerResponse, dispatcher: Agent = agent) => ({
    url,
    body: Buffer.from('{}'),
    headers: { 'content-type': 'application/json' },
    stream: true,
    withholdUsage: false,
    agent: dispatcher,
    timeouts: { firstToken: 0, total: 0, idle: 0 },
    client,
    errorEventStyle: 'chat' as const,
    responseHeaders: () => ({}),
    res,
  });

  it('the client leaves mid-stream: client_gone, the engine sees its request closed, and the attempt stops watching', async () => {
    let engineSawClose = false;
    const up = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event('a'));
      res.on('close', () => (engineSawClose = true));
    });
    const client = presence();
    let result: AttemptResult | undefined;
    const front = await listen((_req, res) => {
      void attempt(input(`${up}/v1/chat/completions`, client, res)).then((r) => (result = r));
    });
    const ac = new AbortController();
    const got = await fetch(front, { method: 'POST', body: '{}', signal: ac.signal });
    const reader = got.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(event('a'));
    client.leave();
    await waitUntil(() => result !== undefined, 'the attempt result');
    expect(result).toMatchObject({ kind: 'client_gone', endpointFault: false });
    expect(result!.kind === 'client_gone' && result!.ttftMs).toBeGreaterThanOrEqual(0);
    expect(client.watching()).toBe(false);
    await waitUntil(() => engineSawClose, 'the engine side closed');
    ac.abort();
  });

  it('the client leaves while its request waits for an upstream connection: answered at once, and never sent', async () => {
    let served = 0;
    let release: (() => void) | undefined;
    const up = await listen((req, res) => {
      served++;
      req.resume();
      // The one connection stays busy until released.
      release = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const one = new Agent({ connections: 1, keepAliveTimeout: 1000 });
    closers.push(() => one.close());
    const first = presence();
    const second = presence();
    const results: AttemptResult[] = [];
    const front = await listen((req, res) => {
      const client = req.headers['x-which'] === 'second' ? second : first;
      void attempt({ ...input(`${up}/v1/chat/completions`, client, res, one), stream: false }).then((r) => {
        results.push(r);
        if (!res.headersSent) res.writeHead(599).end();
      });
    });
    const a = fetch(front, { method: 'POST', body: '{}', headers: { 'x-which': 'first' } });
    await waitUntil(() => served === 1, 'the first request at the engine');
    const b = fetch(front, { method: 'POST', body: '{}', headers: { 'x-which': 'second' } });
    await waitUntil(() => second.watching(), 'the second request waiting for the connection');
    second.leave();
    await waitUntil(() => results.length === 1, 'the second result');
    expect(results[0]).toMatchObject({ kind: 'client_gone', endpointFault: false });
    release!();
    expect((await a).status).toBe(200);
    expect((await b).status).toBe(599);
    // The connection free again, the dropped request is not sent.
    await new Promise((r) => setImmediate(r));
    expect(served).toBe(1);
  });
});

describe('AttemptDeadlines: total, first token and idle on one timer', () => {
  /** Runs `body` with fake timers (performance.now() included); `fired` lists each limit that fired, with its time. */
  function withDeadlines(timeouts: { firstToken: number; total: number; idle: number }, body: (d: AttemptDeadlines, fired: string[]) => void): void {
    jest.useFakeTimers();
    try {
      const t0 = performance.now();
      const fired: string[] = [];
      const d = new AttemptDeadlines(timeouts, t0, (why) => fired.push(`${why}@${Math.round(performance.now() - t0)}`));
      body(d, fired);
    } finally {
      jest.useRealTimers();
    }
  }

  it('first token fires when no byte came, and not once one did', () => {
    withDeadlines({ firstToken: 1000, total: 0, idle: 0 }, (_d, fired) => {
      jest.advanceTimersByTime(999);
      expect(fired).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(fired).toEqual(['first_token@1000']);
    });
    withDeadlines({ firstToken: 1000, total: 0, idle: 0 }, (d, fired) => {
      jest.advanceTimersByTime(500);
      d.firstByte();
      jest.advanceTimersByTime(5000);
      expect(fired).toEqual([]);
    });
  });

  it('idle counts from the headers, every chunk moves it, and a stream that stops is cut idle after its last chunk', () => {
    withDeadlines({ firstToken: 60_000, total: 600_000, idle: 300 }, (d, fired) => {
      jest.advanceTimersByTime(100);
      d.startIdle(); // headers at 100: idle is now due before first token
      for (let i = 0; i < 10; i++) {
        jest.advanceTimersByTime(250);
        d.chunk();
        d.firstByte();
      }
      expect(fired).toEqual([]); // ten chunks 250 ms apart, each within idle of the one before
      jest.advanceTimersByTime(299);
      expect(fired).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(fired).toEqual(['idle@2900']); // the last chunk at 2600, + 300
    });
  });

  it('total fires while chunks keep coming, and stop() ends every limit', () => {
    withDeadlines({ firstToken: 0, total: 1000, idle: 300 }, (d, fired) => {
      d.startIdle();
      for (let i = 0; i < 20; i++) {
        jest.advanceTimersByTime(100);
        d.chunk();
      }
      expect(fired).toEqual(['total@1000']);
    });
    withDeadlines({ firstToken: 100, total: 200, idle: 50 }, (d, fired) => {
      d.startIdle();
      d.stop();
      jest.advanceTimersByTime(10_000);
      expect(fired).toEqual([]);
    });
  });
});
