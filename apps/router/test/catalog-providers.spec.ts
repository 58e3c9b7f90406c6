import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { MODEL_CATALOG_SCHEMA_VERSION, type CatalogEntry } from '@llmgw/contracts';
import { normaliseEndpoint, RedisEndpointWriter } from '@llmgw/endpoints';
import { RedisCatalogView } from '@llmgw/stores';
import { spawnRole, waitUntil, type SpawnedRole } from '@llmgw/testing';
import { start, type RunningRouter } from '../src/main';
import { capturingLog, metricValue } from './helpers';
import { clientCalls } from './client-calls';
import { keyWith, recordUsage } from './tenancy-with-keys';

// Providers and fallbacks from the placement-scheduler's catalog view (docs/models.md, "Providers"):
// a router given no `models` and no endpoints of its own, fed only from Redis (the endpoint set and
// the catalog view, written as the scheduler writes them: apps/placement-scheduler
// catalog-entries.spec.ts checks the writer gives exactly these entries), serves a provider-only
// model with its cost in the ledger, falls back to it while the self-hosted model has no replica,
// drops it when the view does, and never sees the key: the view names the key file, which the
// router reads on its own machine.
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());
jest.setTimeout(90_000);

const ledger = recordUsage();
const PROVIDER_KEY = 'sk-catalog-provider-4e1b9d7a2f';
const CLIENT = keyWith({}, 'catprov');
const PRICE = { input_per_million: 3, output_per_million: 9 };
const prefix = `test:${randomUUID()}:`;
const dir = mkdtempSync(join(tmpdir(), 'llmgw-catalog-providers-'));
const keyFile = join(dir, 'provider-key');
writeFileSync(keyFile, `${PROVIDER_KEY}\n`, { mode: 0o600 });

const redis = new Redis('redis://127.0.0.1:6379');
const sub = redis.duplicate();
const endpoints = new RedisEndpointWriter(redis, prefix);
const view = new RedisCatalogView(redis, prefix, sub);
let provider: SpawnedRole;
let own: SpawnedRole;
let router: RunningRouter;
const captured = capturingLog('debug');
const seen: string[] = [];

const hosted: CatalogEntry = {
  v: MODEL_CATALOG_SCHEMA_VERSION,
  model: 'hosted',
  mode: 'off',
  retryAfterS: 5,
  provider: {
    base_url: '',
    model: 'vendor/llama-hosted',
    credentials: { file: keyFile },
    connect_timeout: 5_000,
    first_token_timeout: 60_000,
    total_timeout: 600_000,
    max_concurrency: 4,
    price: PRICE,
  },
};
const llama: CatalogEntry = { v: MODEL_CATALOG_SCHEMA_VERSION, model: 'llama', mode: 'always-on', retryAfterS: 5, fallbacks: ['hosted'] };
const ownEndpoint = () => normaliseEndpoint({ name: 'llama-1', url: own.url, model: 'llama' });

beforeAll(async () => {
  [provider, own] = await Promise.all([
    spawnRole('sim-engine', ['--port', '0', '--model', 'vendor/llama-hosted', '--decode-tps', '2000', '--max-tokens-default', '8'], {
      env: { VLLM_API_KEY: PROVIDER_KEY },
    }),
    spawnRole('sim-engine', ['--port', '0', '--model', 'llama', '--decode-tps', '2000', '--max-tokens-default', '8']),
  ]);
  const withUrl = { ...hosted, provider: { ...hosted.provider!, base_url: `${provider.url}/v1` } };
  await view.write(
    new Map([
      ['hosted', withUrl],
      ['llama', llama],
      ['l', llama],
    ]),
  );
  await endpoints.replace([ownEndpoint()]);
  router = await start({
    log: captured.log,
    config: {
      listen: '127.0.0.1:0',
      admin_listen: '127.0.0.1:0',
      log_level: 'debug',
      scrape_interval: 200,
      tenancy: { enabled: true },
      admission: { mode: 'local' },
      endpoint_source: { kind: 'redis', redis_url: 'redis://127.0.0.1:6379', key_prefix: prefix },
    },
  });
}, 120_000);

afterAll(async () => {
  await router?.close();
  await Promise.all([provider?.stop(), own?.stop()]);
  const ks = await redis.keys(`${prefix}*`);
  if (ks.length) await redis.del(...ks);
  sub.disconnect();
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const { chat, recordOf } = clientCalls(() => router.url, CLIENT, ledger, seen);

describe('providers from the catalog view', () => {
  it('streams a provider-only model of the catalog view, priced at its catalog price', async () => {
    // The view names where the key is, never the key.
    const stored = JSON.stringify(await redis.hgetall(`${prefix}models:catalog`));
    expect(stored).toContain(keyFile);
    expect(stored).not.toContain(PROVIDER_KEY);
    const r = await chat('hosted', { stream: true }, 'catprov-stream-1');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-llmgw-served-model')).toBe('hosted');
    expect(r.text).not.toContain('vendor/llama-hosted');
    expect(r.text.trim().endsWith('data: [DONE]')).toBe(true);
    const rec = await recordOf('catprov-stream-1');
    expect(rec).toMatchObject({ model: 'hosted', servedModel: 'hosted', pool: 'provider:hosted', status: 200, completionTokens: 5 });
    expect(rec.costMicros).toBe(Math.ceil(PRICE.input_per_million * rec.promptTokens + PRICE.output_per_million * rec.completionTokens));
    const models = (await (await fetch(`${router.url}/v1/models`, { headers: { authorization: `Bearer ${CLIENT}` } })).json()) as {
      data: Array<{ id: string }>;
    };
    expect(models.data.map((m) => m.id)).toEqual(expect.arrayContaining(['hosted', 'llama']));
  });

  it("falls back to the catalog's provider while the self-hosted model has no replica, and back when it returns", async () => {
    expect((await chat('llama')).headers.get('x-llmgw-served-model')).toBe('llama');
    await endpoints.replace([]);
    await waitUntil(() => router.core.source.all().length === 0, 'the replica gone from the endpoint set', { everyMs: 25 });
    const during = await chat('l', {}, 'catprov-fallback-1');
    expect(during.status).toBe(200);
    expect(during.headers.get('x-llmgw-served-model')).toBe('hosted');
    expect(await recordOf('catprov-fallback-1')).toMatchObject({ model: 'llama', servedModel: 'hosted', pool: 'provider:hosted' });
    await endpoints.replace([ownEndpoint()]);
    await waitUntil(async () => (await chat('llama')).headers.get('x-llmgw-served-model') === 'llama', 'llama served by its replica again', {
      timeoutMs: 30_000,
      everyMs: 200,
    });
  });

  it('drops the provider when the view does', async () => {
    await view.write(new Map([['llama', { ...llama, fallbacks: undefined }]]));
    await waitUntil(() => !router.core.state.providers?.forModel('hosted'), 'the provider dropped', { everyMs: 25 });
    expect((await chat('hosted')).status).toBe(404);
  });

  it('the key is in no response, ledger record, log line or metric', async () => {
    expect(JSON.stringify(ledger.records)).not.toContain(PROVIDER_KEY);
    expect(seen.join('\n')).not.toContain(PROVIDER_KEY);
    expect(JSON.stringify(captured.lines)).not.toContain(PROVIDER_KEY);
    const metrics = await (await fetch(`${router.adminUrl}/metrics`)).text();
    expect(metrics).not.toContain(PROVIDER_KEY);
    expect(await metricValue(router.adminUrl, 'llmgw_provider_requests_total', { provider: 'hosted', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
  });
});
