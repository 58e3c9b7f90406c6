import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { spawnRole, startFaultProxy, waitUntil, type FaultMode, type FaultProxy, type SpawnedRole } from '@llmgw/testing';
import { metricValue } from './helpers';

// Network faults between a router and its engines, on real processes: two sim-engines, each
// behind a fault proxy (libs/testing/src/fault-proxy.ts), and a router whose static endpoints
// are the proxies. Every wait is for an event (a metric, a log line, a request's answer); the
// configured timeouts are small so that the suite is quick, and only outcomes are asserted.
// The figures docs/operations.md quotes ("Engine and network faults") are printed with
// LLMGW_TEST_MEASURE=1.

jest.setTimeout(120_000);

const dir = mkdtempSync(join(tmpdir(), 'llmgw-net-faults-'));
const measure = (what: string, ms: number) => {
  if (process.env.LLMGW_TEST_MEASURE) process.stderr.write(`measure: ${what}: ${Math.round(ms)} ms\n`);
};

let engines: Record<'a' | 'b', SpawnedRole>;
let proxies: Record<'a' | 'b', FaultProxy>;
const routers: SpawnedRole[] = [];
/** Set by a test whose router the next test reuses (afterEach then leaves it running). */
let keepRouter = false;
let resetRouter: { r: SpawnedRole; admin: string } | undefined;

beforeAll(async () => {
  const engine = () => spawnRole('sim-engine', ['--port', '0', '--model', 'm', '--decode-tps', '0', '--prefill-tps', '0', '--log-level', 'warn']);
  const [a, b] = await Promise.all([engine(), engine()]);
  engines = { a, b };
  proxies = { a: await startFaultProxy({ target: a.url }), b: await startFaultProxy({ target: b.url }) };
});

afterEach(async () => {
  if (keepRouter) keepRouter = false;
  else await Promise.all(routers.splice(0).map((r) => r.stop()));
  await Promise.all(Object.values(proxies).map((p) => p.set({ kind: 'pass' })));
});

afterAll(async () => {
  await Promise.all(Object.values(proxies ?? {}).map((p) => p.close()));
  await Promise.all(Object.values(engines ?? {}).map((e) => e.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/** A router process over endpoints `a` and `b` (the two proxies), with `cfg` on top. */
async function router(cfg: Record<string, unknown>): Promise<{ r: SpawnedRole; admin: string }> {
  const file = join(dir, `router-${routers.length}-${Date.now()}.yaml`);
  // JSON is YAML.
  writeFileSync(
    file,
    JSON.stringify({
      endpoints: [
        { name: 'a', url: proxies.a.url, model: 'm' },
        { name: 'b', url: proxies.b.url, model: 'm' },
      ],
      ...cfg,
    }),
  );
  const r = await spawnRole('router', ['--config', file, '--port', '0', '--admin-port', '0']);
  routers.push(r);
  return { r, admin: r.urls.admin };
}

interface Answer {
  status: number;
  replica: string | null;
  text: string;
}

/** One chat request, read to its end; `pin` sends x-llmgw-replica. */
async function chat(r: SpawnedRole, opts: { pin?: string; stream?: boolean; maxTokens?: number } = {}): Promise<Answer> {
  const res = await fetch(`${r.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(opts.pin ? { 'x-llmgw-replica': opts.pin } : {}) },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello' }], max_tokens: opts.maxTokens ?? 8, stream: opts.stream === true }),
  });
  // text() rejects when the response is not ended properly (a cut connection).
  return { status: res.status, replica: res.headers.get('x-llmgw-replica'), text: await res.text() };
}

/** Generation requests an engine has received (sim-engine's /sim/priorities, read around the proxy). */
async function received(e: SpawnedRole): Promise<number> {
  const j = (await (await fetch(`${e.url}/sim/priorities`)).json()) as { by_priority: Record<string, number> };
  return Object.values(j.by_priority).reduce((a, b) => a + b, 0);
}

/** The router's JSON log lines with this `msg`. */
const logLines = (r: SpawnedRole, msg: string) =>
  r
    .output()
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg === msg);

const breaker = (admin: string, replica: string) => metricValue(admin, 'llmgw_endpoint_breaker_state', { replica });

/** True once the router has scraped `replica` successfully (its stale gauge exists and reads 0). */
const scrapedFresh = async (admin: string, replica: string) =>
  new RegExp(`^llmgw_endpoint_metrics_stale\\{[^}]*replica="${replica}"[^}]*\\} 0$`, 'm').test(await (await fetch(`${admin}/metrics`)).text());

describe('router ↔ engine network faults (real processes behind fault proxies)', () => {
  it('a reset before the first response byte is retried on the other replica: the client gets 200', async () => {
    const { r, admin } = await router({ cooldown_seconds: 0, scrape_interval: '60s' });
    expect((await chat(r, { pin: 'a' })).replica).toBe('a');
    const before = await received(engines.a);

    await proxies.a.set({ kind: 'reset', afterBytes: 0 });
    for (const stream of [false, true]) {
      const got = await chat(r, { pin: 'a', stream });
      expect([got.status, got.replica]).toEqual([200, 'b']);
      if (stream) expect(got.text.endsWith('data: [DONE]\n\n')).toBe(true);
      else expect(JSON.parse(got.text).object).toBe('chat.completion');
    }
    // The engine behind the reset did the work each time; its answer never arrived.
    expect(await received(engines.a)).toBe(before + 2);
    expect(proxies.a.stats().resets).toBeGreaterThanOrEqual(2);

    // A non-streaming answer cut mid-body (past its headers) reached no client either: retried too.
    await proxies.a.set({ kind: 'reset', afterBytes: 600 });
    const cut = await chat(r, { pin: 'a', maxTokens: 300 });
    expect([cut.status, cut.replica]).toEqual([200, 'b']);
    expect(await metricValue(admin, 'llmgw_retries_total', { model: 'm', reason: 'connect' })).toBe(3);
    keepRouter = true;
    resetRouter = { r, admin };
  });

  it('a reset after part of a stream was sent is not retried: the events so far, an OpenAI error event, a properly ended stream', async () => {
    // The same router as the test before (same settings: one process start less).
    const { r, admin } = resetRouter ?? (await router({ cooldown_seconds: 0, scrape_interval: '60s' }));
    expect((await chat(r, { pin: 'a' })).replica).toBe('a'); // a success: a's failure streak starts afresh
    const retriesBefore = await metricValue(admin, 'llmgw_retries_total', { model: 'm' });
    const bBefore = await received(engines.b);
    // Past the response headers and a few events of a ~57 kB stream.
    await proxies.a.set({ kind: 'reset', afterBytes: 3000 });
    const got = await chat(r, { pin: 'a', stream: true, maxTokens: 300 });
    expect([got.status, got.replica]).toEqual([200, 'a']);
    const events = got.text.split('\n\n').filter(Boolean);
    const last = events.pop()!;
    expect(events.length).toBeGreaterThan(1);
    for (const e of events) expect(JSON.parse(e.slice('data: '.length)).object).toBe('chat.completion.chunk');
    expect(last.startsWith('data: ')).toBe(true);
    expect(JSON.parse(last.slice('data: '.length))).toEqual({
      error: {
        message: 'the engine closed the stream before it finished',
        type: 'server_error',
        param: null,
        code: 'upstream_error',
        llmgw_code: 'LLMGW_ERR_UPSTREAM_ERROR',
      },
    });
    expect(got.text).not.toContain('[DONE]');

    // The OpenAI SDK turns that event into an APIError thrown from the iterator.
    const client = new OpenAI({ baseURL: `${r.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const stream = await client.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'hello' }], max_tokens: 300, stream: true },
      { headers: { 'x-llmgw-replica': 'a' } },
    );
    let chunks = 0;
    const err = await (async () => {
      for await (const _ of stream) chunks++;
    })().catch((e: unknown) => e);
    expect(chunks).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).message).toContain('the engine closed the stream before it finished');

    // Not retried: nothing went to b; what operators see.
    expect(await received(engines.b)).toBe(bBefore);
    expect(await metricValue(admin, 'llmgw_retries_total', { model: 'm' })).toBe(retriesBefore);
    expect(await metricValue(admin, 'llmgw_streams_cut_total', { model: 'm', reason: 'upstream_closed' })).toBe(2);
    await waitUntil(() => logLines(r, 'stream cut').length === 2, 'two "stream cut" log lines');
    expect(logLines(r, 'stream cut')[0]).toMatchObject({ level: 'warn', endpoint: 'a', reason: 'upstream_closed' });
    const completed = logLines(r, 'request completed').filter((l) => l.streamCut);
    expect(completed.map((l) => [l.status, l.endpoint, l.streamCut])).toEqual([
      [200, 'a', 'upstream_closed'],
      [200, 'a', 'upstream_closed'],
    ]);
  });

  it('the breaker opens on an engine that refuses, requests keep succeeding elsewhere, and it closes once the engine is back', async () => {
    // Scrapes run (a half-open probe waits for one that gets an answer), at the default interval. The
    // first open period (2 s) spans the three calls to the router made while it must still be open.
    const { r, admin } = await router({
      cooldown_seconds: 0,
      scrape_interval: '2s',
      breaker: { failure_threshold: 2, base_backoff: '2s', max_backoff: '4s' },
    });
    await waitUntil(() => scrapedFresh(admin, 'a'), 'a first good scrape of a');
    expect((await chat(r, { pin: 'a' })).replica).toBe('a');

    await proxies.a.set({ kind: 'refuse' });
    const t0 = performance.now();
    for (let i = 0; i < 2; i++) expect(await chat(r, { pin: 'a' })).toMatchObject({ status: 200, replica: 'b' });
    await waitUntil(async () => (await breaker(admin, 'a')) === 2, 'the breaker of a to open');
    measure('refused engine: fault → breaker open (2 failed requests, threshold 2)', performance.now() - t0);
    const retries = await metricValue(admin, 'llmgw_retries_total', { model: 'm', reason: 'connect' });
    expect(retries).toBe(2);
    // Open: a pinned request is not even tried on a.
    expect(await chat(r, { pin: 'a' })).toMatchObject({ status: 200, replica: 'b' });
    expect(await metricValue(admin, 'llmgw_retries_total', { model: 'm', reason: 'connect' })).toBe(retries);

    await proxies.a.set({ kind: 'pass' });
    const t1 = performance.now();
    // Every request succeeds; after the backoff one of them is the half-open probe, served by a.
    await waitUntil(
      async () => {
        const got = await chat(r, { pin: 'a' });
        expect(got.status).toBe(200);
        return got.replica === 'a';
      },
      'a pinned request served by a again',
      { everyMs: 50 },
    );
    measure('refused engine back: → breaker closed (backoff 2 s, then the first request)', performance.now() - t1);
    expect(await breaker(admin, 'a')).toBe(0);
    // closed → open, open → half-open (a failed scrape while half-open may re-open it once more), half-open → closed.
    await waitUntil(() => logLines(r, 'endpoint breaker').some((l) => l.to === 'closed'), 'the closing in the log');
    const steps = logLines(r, 'endpoint breaker').map((l) => `${l.level} ${l.from}>${l.to}`);
    expect(steps[0]).toBe('warn closed>open');
    expect(steps.at(-2)).toBe('info open>half_open');
    expect(steps.at(-1)).toBe('info half_open>closed');
    for (const st of steps) if (st.endsWith('>open')) expect(st.startsWith('warn')).toBe(true);
  });

  it.each<[string, FaultMode]>([
    ['blackholed', { kind: 'blackhole' }],
    ['half-open', { kind: 'half_open' }],
  ])('a %s engine: the request on it gets 504 after first_token, then it is out of rotation and requests succeed on the other replica', async (_what, mode) => {
    const { r, admin } = await router({ cooldown_seconds: 30, scrape_interval: '60s', timeouts: { first_token: '1s', connect: '500ms' } });
    expect((await chat(r, { pin: 'a' })).replica).toBe('a');
    const before = await received(engines.a);

    await proxies.a.set(mode);
    const t0 = performance.now();
    const lost = await chat(r, { pin: 'a' });
    measure(`${_what} engine: request → 504 (first_token 1 s)`, performance.now() - t0);
    expect(lost.status).toBe(504);
    expect(JSON.parse(lost.text).error).toMatchObject({ code: 'upstream_timeout', message: 'upstream first token timeout' });
    // half-open: the engine got the request; blackhole: it never saw it.
    expect(await received(engines.a)).toBe(before + (mode.kind === 'half_open' ? 1 : 0));

    for (let i = 0; i < 6; i++) expect(await chat(r, i % 2 ? { pin: 'a' } : {})).toMatchObject({ status: 200, replica: 'b' });
    expect(await metricValue(admin, 'llmgw_requests_total', { model: 'm', status: '504' })).toBe(1);
    await waitUntil(() => logLines(r, 'request failed').length === 1, 'the "request failed" log line');
    expect(logLines(r, 'request failed')[0]).toMatchObject({ endpoint: 'a', err: 'upstream first token timeout' });
  });

  it('a blackholed engine is taken out by the scraper before any request reaches it, and stays out while it is dark', async () => {
    const { r, admin } = await router({
      cooldown_seconds: 30,
      scrape_interval: '200ms',
      scrape_timeout: '300ms',
      breaker: { base_backoff: '300ms', max_backoff: '600ms' },
      timeouts: { first_token: '1s' },
    });
    await waitUntil(() => scrapedFresh(admin, 'a'), 'a first good scrape of a');
    expect(logLines(r, 'endpoint breaker')).toEqual([]);
    const before = await received(engines.a);

    await proxies.a.set({ kind: 'blackhole' });
    const t0 = performance.now();
    await waitUntil(async () => (await breaker(admin, 'a')) === 2, 'the scraper to open the breaker of a');
    measure('blackholed engine: fault → breaker open by scrapes (interval 200 ms, timeout 300 ms)', performance.now() - t0);

    // Requests keep succeeding on b through a half-open window while a stays dark:
    // no client request is spent as a probe on an engine whose scrapes still fail.
    const answers: Answer[] = [];
    await waitUntil(
      async () => {
        answers.push(await chat(r, answers.length % 2 ? { pin: 'a' } : {}));
        return (
          logLines(r, 'endpoint breaker').filter((l) => l.to === 'half_open').length >= 1 &&
          logLines(r, 'endpoint breaker').filter((l) => l.to === 'open').length >= 2
        );
      },
      'a half-open window that ended open again',
      { everyMs: 50 },
    );
    expect(answers.filter((x) => x.status !== 200 || x.replica !== 'b')).toEqual([]);
    expect(await received(engines.a)).toBe(before);

    // Back: the first good scrape lets a probe through, and a serves again.
    await proxies.a.set({ kind: 'pass' });
    const t1 = performance.now();
    await waitUntil(
      async () => {
        const got = await chat(r, { pin: 'a' });
        expect(got.status).toBe(200);
        return got.replica === 'a';
      },
      'a pinned request served by a again',
      { everyMs: 50 },
    );
    measure('blackholed engine back: → served again', performance.now() - t1);
    expect(await breaker(admin, 'a')).toBe(0);
  });
});
