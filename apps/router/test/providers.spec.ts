import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnRole, waitUntil, type SpawnedRole } from '@llmgw/testing';
import { start, type RunningRouter } from '../src/main';
import { capturingLog, fakeUpstream, metricValue, type FakeUpstream } from './helpers';
import { clientCalls } from './client-calls';
import { keyWith, recordUsage } from './tenancy-with-keys';

// External providers (docs/models.md, "Providers") end to end: a sim-engine that requires an API key
// plays the provider, another sim-engine is the self-hosted replica, and a small fake answers 500s.
// The router runs with tenancy (the real one, in-process stores) and local admission.
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());
jest.setTimeout(90_000);

const ledger = recordUsage();

const PROVIDER_KEY = 'sk-provider-secret-7f3a9c1e5b';
const FLAKY_KEY = 'sk-flaky-secret-2d8e4b6a0c';
const CLIENT = keyWith({}, 'prov');
const PRICE = { input_per_million: 2, output_per_million: 6 };

const dir = mkdtempSync(join(tmpdir(), 'llmgw-providers-'));
const keyFile = join(dir, 'provider-key');
writeFileSync(keyFile, `${PROVIDER_KEY}\n`, { mode: 0o600 });

let provider: SpawnedRole;
let own: SpawnedRole | undefined;
let ownPort: number;
let flaky: FakeUpstream;
/** A provider that holds every answer until the test releases it, counting what it has in flight. */
let slow: FakeUpstream;
const held: Array<() => void> = [];
let slowInflight = 0;
let slowPeak = 0;
/** A replica whose /metrics says it is saturated (queue far past target_waiting_per_replica). */
let busy: FakeUpstream;
let router: RunningRouter;
const captured = capturingLog('debug');
/** Every response body and header block the client saw, for the leak check. */
const seen: string[] = [];

const startOwn = () => spawnRole('sim-engine', ['--port', String(ownPort), '--model', 'llama', '--decode-tps', '2000', '--max-tokens-default', '8']);

beforeAll(async () => {
  process.env.LLMGW_TEST_FLAKY_KEY = FLAKY_KEY;
  ownPort = await freePort();
  [provider, own] = await Promise.all([
    spawnRole('sim-engine', ['--port', '0', '--model', 'vendor/llama-hosted', '--decode-tps', '2000', '--max-tokens-default', '8'], {
      env: { VLLM_API_KEY: PROVIDER_KEY },
    }),
    startOwn(),
  ]);
  flaky = await fakeUpstream((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    // A provider that echoes the key it was sent: the router must not pass it on.
    res.end(JSON.stringify({ error: { message: `internal error (key ${FLAKY_KEY})`, type: 'server_error' } }));
  });
  slow = await fakeUpstream((_req, res) => {
    slowPeak = Math.max(slowPeak, ++slowInflight);
    held.push(() => {
      slowInflight--;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ id: 'x', object: 'chat.completion', model: 'slow-upstream', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' } }] }),
      );
    });
  });
  busy = await fakeUpstream();
  busy.metrics = 'vllm:num_requests_running 8\nvllm:num_requests_waiting 40\nvllm:kv_cache_usage_perc 0.9\n';
  router = await start({
    log: captured.log,
    config: {
      listen: '127.0.0.1:0',
      admin_listen: '127.0.0.1:0',
      log_level: 'debug',
      scrape_interval: 200,
      stale_after: 1000,
      cooldown_seconds: 0,
      breaker: { failure_threshold: 3, base_backoff: 4000, max_backoff: 4000 },
      tenancy: { enabled: true },
      admission: { mode: 'local' },
      models: [
        { name: 'llama', fallbacks: ['hosted'] },
        {
          name: 'hosted',
          provider: { base_url: `${provider.url}/v1`, model: 'vendor/llama-hosted', credentials: { file: keyFile }, price: PRICE, max_concurrency: 4 },
        },
        { name: 'slow', provider: { base_url: `${slow.url}/v1`, model: 'slow-upstream', max_concurrency: 4 } },
        { name: 'both', provider: { base_url: `${provider.url}/v1`, model: 'vendor/llama-hosted', credentials: { file: keyFile } } },
        { name: 'flaky', provider: { base_url: `${flaky.url}/v1/`, model: 'flaky-upstream', credentials: { env: 'LLMGW_TEST_FLAKY_KEY' } } },
      ],
      endpoints: [
        { name: 'llama-1', url: `http://127.0.0.1:${ownPort}`, model: 'llama' },
        { name: 'both-1', url: busy.url, model: 'both' },
      ],
    },
  });
}, 120_000);

afterAll(async () => {
  await router?.close();
  for (const release of held.splice(0)) release();
  await Promise.all([provider?.stop(), own?.stop(), flaky?.close(), slow?.close(), busy?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const { chat, recordOf } = clientCalls(() => router.url, CLIENT, ledger, seen);

describe('external providers', () => {
  it('streams a provider-only model with usage, the catalog name, and its cost in the ledger', async () => {
    const r = await chat('hosted', { stream: true }, 'prov-stream-1');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-llmgw-served-model')).toBe('hosted');
    const events = r.text
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)));
    expect(events.length).toBeGreaterThan(1);
    // The provider's name for the model never reaches the client; the usage chunk the router asked for is withheld.
    expect(r.text).not.toContain('vendor/llama-hosted');
    expect(events.every((e) => e.model === 'hosted')).toBe(true);
    expect(events.some((e) => e.usage)).toBe(false);
    expect(r.text.trim().endsWith('data: [DONE]')).toBe(true);
    const rec = await recordOf('prov-stream-1');
    expect(rec).toMatchObject({ model: 'hosted', servedModel: 'hosted', pool: 'provider:hosted', status: 200, completionTokens: 5 });
    expect(rec.promptTokens).toBeGreaterThan(0);
    expect(rec.costMicros).toBe(Math.ceil(PRICE.input_per_million * rec.promptTokens + PRICE.output_per_million * rec.completionTokens));
    expect(await metricValue(router.adminUrl, 'llmgw_provider_requests_total', { provider: 'hosted', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
  });

  it('passes usage on when the client asks for it, and answers non-streaming requests renamed', async () => {
    const s = await chat('hosted', { stream: true, stream_options: { include_usage: true } });
    expect(s.text).toMatch(/"usage":\{[^}]*"completion_tokens":5/);
    const r = await chat('hosted', {}, 'prov-plain-1');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatchObject({ model: 'hosted', usage: { completion_tokens: 5 } });
    expect((await recordOf('prov-plain-1')).completionTokens).toBe(5);
  });

  it('errors come back in OpenAI shape under the catalog name', async () => {
    const r = await chat('hosted', { messages: 'not a list' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toMatchObject({ type: 'invalid_request_error' });
  });

  it('falls back to the provider while the self-hosted replica is down, and back when it returns', async () => {
    const before = await chat('llama');
    expect(before.headers.get('x-llmgw-served-model')).toBe('llama');
    await own!.stop();
    own = undefined;
    const during = await chat('llama', {}, 'prov-fallback-1');
    expect(during.status).toBe(200);
    expect(during.headers.get('x-llmgw-served-model')).toBe('hosted');
    expect(JSON.parse(during.text).model).toBe('hosted');
    expect(await recordOf('prov-fallback-1')).toMatchObject({ model: 'llama', servedModel: 'hosted', pool: 'provider:hosted' });
    own = await startOwn();
    let served = '';
    await waitUntil(
      async () => {
        served = (await chat('llama')).headers.get('x-llmgw-served-model') ?? '';
        return served === 'llama';
      },
      'llama served by its replica again',
      { timeoutMs: 30_000, everyMs: 200 },
    );
    expect(served).toBe('llama');
  });

  it('a provider answering 500s opens its breaker; a probe that succeeds closes it', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await chat('flaky');
      expect(r.status).toBe(502);
      expect(JSON.parse(r.text).error.message).toContain('[redacted]');
    }
    expect(flaky.hits.every((h) => h.headers.authorization === `Bearer ${FLAKY_KEY}`)).toBe(true);
    expect(flaky.hits.every((h) => h.path === '/v1/chat/completions' && h.body.model === 'flaky-upstream')).toBe(true);
    expect(await metricValue(router.adminUrl, 'llmgw_endpoint_breaker_state', { replica: 'provider:flaky' })).toBe(2);
    const hits = flaky.hits.length;
    const refused = await chat('flaky');
    expect(refused.status).toBe(503);
    expect(flaky.hits.length).toBe(hits);
    expect(await metricValue(router.adminUrl, 'llmgw_provider_requests_total', { provider: 'flaky', outcome: 'error' })).toBe(3);

    flaky.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          model: 'flaky-upstream',
          choices: [{ index: 0, message: { role: 'assistant', content: 'fine now' } }],
        }),
      );
    };
    let body: any;
    await waitUntil(
      async () => {
        const r = await chat('flaky', {}, `prov-probe-${Date.now()}`);
        body = r.status === 200 ? JSON.parse(r.text) : undefined;
        return body !== undefined;
      },
      'the half-open probe succeeds',
      { timeoutMs: 20_000, everyMs: 250 },
    );
    expect(body.model).toBe('flaky');
    expect(await metricValue(router.adminUrl, 'llmgw_endpoint_breaker_state', { replica: 'provider:flaky' })).toBe(0);
    // No usage from this provider: the router counted the tokens itself ("fine now": 8 characters, 2 tokens).
    const rec = ledger.records.filter((r) => r.servedModel === 'flaky' && r.status === 200).at(-1)!;
    expect(rec.completionTokens).toBe(2);
    expect(rec.promptTokens).toBeGreaterThan(0);
  });

  it("requests beyond a provider's max_concurrency wait in admission's queue, not at the provider", async () => {
    const answers = Promise.all(Array.from({ length: 7 }, (_, i) => chat('slow', {}, `prov-slow-${i}`)));
    await waitUntil(() => slow.hits.length >= 1, 'the slow provider has requests');
    await waitUntil(
      async () => (await metricValue(router.adminUrl, 'llmgw_admission_queue_depth', { model: 'slow' })) > 0,
      'requests queued at admission for the provider',
      { timeoutMs: 10_000, everyMs: 50 },
    );
    expect(slowInflight).toBeLessThanOrEqual(4);
    // Released one at a time as they arrive: each answer frees a slot, and admission lets the next one in.
    await waitUntil(
      () => {
        for (const release of held.splice(0)) release();
        return slow.hits.length === 7 && slowInflight === 0;
      },
      'every queued request reached the provider',
      { timeoutMs: 20_000, everyMs: 20 },
    );
    const rs = await answers;
    expect(rs.map((r) => r.status)).toEqual(Array(7).fill(200));
    expect(slowPeak).toBeLessThanOrEqual(4);
    expect(rs.some((r) => Number(r.headers.get('x-llmgw-queue-ms')) > 0)).toBe(true);
  });

  it("a model with replicas and a provider spills to the provider while its replicas' pool is saturated", async () => {
    await waitUntil(
      async () => (await metricValue(router.adminUrl, 'llmgw_pool_saturation', { pool: 'default', model: 'both', component: 'total' })) >= 1,
      "admission sees the busy replica's pool saturated",
      { timeoutMs: 10_000, everyMs: 50 },
    );
    const r = await chat('both');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-llmgw-replica')).toBe('provider:both');
    expect(JSON.parse(r.text).model).toBe('both');
    expect(busy.hits).toHaveLength(0);
  });

  it('a router serving only providers is ready without any endpoint', async () => {
    const only = await start({
      log: captured.log,
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        models: [{ name: 'hosted', provider: { base_url: `${provider.url}/v1`, model: 'vendor/llama-hosted', credentials: { file: keyFile } } }],
      },
    });
    try {
      expect((await fetch(`${only.adminUrl}/readyz`)).status).toBe(200);
      const r = await fetch(`${only.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${CLIENT}` },
        body: JSON.stringify({ model: 'hosted', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }),
      });
      seen.push(JSON.stringify([...r.headers]), await r.text());
      expect(r.status).toBe(200);
    } finally {
      await only.close();
    }
  });

  it('the provider keys appear in no response, log line or metric', async () => {
    const metrics = await (await fetch(`${router.adminUrl}/metrics`)).text();
    expect(metrics).toContain('llmgw_provider_requests_total');
    const logs = captured.lines.map((l) => JSON.stringify(l));
    expect(logs.length).toBeGreaterThan(10);
    for (const key of [PROVIDER_KEY, FLAKY_KEY]) {
      expect(metrics).not.toContain(key);
      expect(logs.filter((l) => l.includes(key))).toEqual([]);
      expect(seen.filter((s) => s.includes(key))).toEqual([]);
    }
  });
});
