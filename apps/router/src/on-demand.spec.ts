import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { modelCatalogKeys } from '@llmgw/contracts';
import { RedisEndpointWriter } from '@llmgw/endpoints';
import { waitUntil } from '@llmgw/testing';
import type { RouterCore } from './router';
import { admit, resolveModel } from './stages';
import { contextOf, stageRouter } from './stages/testing';

// On-demand loading against a real Redis: the catalog view as the placement-scheduler writes it.
describe('on-demand models (router side)', () => {
  const prefix = `test:${randomUUID()}:`;
  const keys = modelCatalogKeys(prefix);
  let redis: Redis;
  let sub: Redis;
  let core: RouterCore;
  const demands: string[] = [];

  beforeAll(async () => {
    redis = new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 1 });
    sub = redis.duplicate();
    await sub.subscribe(keys.demandChannel);
    sub.on('message', (_ch: string, m: string) => demands.push(m));
    const entry = (model: string, mode: string) => JSON.stringify({ v: 1, model, mode, retryAfterS: 7 });
    await redis.hset(keys.catalog, 'od', entry('od', 'on-demand'), 'od-alias', entry('od', 'on-demand'), 'off', entry('off', 'off'));
    // A hold long enough that the replica published during it (a write, its notification, the router's re-read) lands
    // within it on a busy machine too.
    core = await stageRouter({ endpoint_source: { kind: 'redis', redis_url: 'redis://127.0.0.1:6379', key_prefix: prefix, on_demand_hold: 5000 } });
  });

  afterAll(async () => {
    await core.close();
    const ks = await redis.keys(`${prefix}*`);
    if (ks.length) await redis.del(...ks);
    sub.disconnect();
    await redis.quit();
  });

  const ctx = (model: string) => {
    const c = contextOf('chat', {}, { model, messages: [{ role: 'user', content: 'hi' }] });
    // The serving plan starts with the model alone as its chain (reserve builds the fallbacks).
    resolveModel(core.state, c);
    return c;
  };

  it('resolves catalogued names and aliases with no endpoint; an unknown name is still 404', () => {
    expect(ctx('od-alias').model).toBe('od');
    expect(() => ctx('nope')).toThrow(expect.objectContaining({ code: 'LLMGW_ERR_MODEL_NOT_FOUND' }));
  });

  it('holds, asks for a replica, then answers 503 model_loading with Retry-After', async () => {
    await expect(admit(ctx('od'))).rejects.toMatchObject({ code: 'LLMGW_ERR_MODEL_LOADING', retryAfterSeconds: 7 });
    expect(Number(await redis.hget(keys.demand, 'od'))).toBeGreaterThan(Date.now() - 60_000);
    await waitUntil(() => demands.includes('od'), 'the demand for od on its channel');
  });

  it('a switched-off model is not loaded: no_endpoint, no demand', async () => {
    await expect(admit(ctx('off'))).rejects.toMatchObject({ code: 'LLMGW_ERR_NO_ENDPOINT' });
    expect(await redis.hget(keys.demand, 'off')).toBeNull();
  });

  it('a held request goes through when the replica is published while it waits', async () => {
    const c = ctx('od');
    const p = admit(c);
    await new RedisEndpointWriter(redis, prefix).put({
      id: 'od-1',
      url: 'http://127.0.0.1:9',
      model: 'od',
      engine: 'vllm',
      pool: 'h100-80g',
      priority: 0,
      weight: 100,
      draining: false,
    });
    await p;
    expect(c.servedModel).toBe('od');
    c.lease?.release({ status: 200 });
  });
});
