import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { MODEL_CATALOG_SCHEMA_VERSION, type CatalogEntry } from '@llmgw/contracts';
import { dropInProcessState, inProcessState, RedisCatalogView, type CatalogViewWriter } from '@llmgw/stores';
import type { RouterCore } from './router';
import { resolveModel } from './stages';
import { contextOf, stageRouter } from './stages/testing';

// A router started before the placement-scheduler: until it has read a catalog view it cannot tell
// "not catalogued" from "not published yet", so an unknown name gets a retryable 503, not a final 404;
// the view the scheduler then writes reaches the router at once (pushed, not polled), for Redis and
// for the in-process state of `llmgw up` alike.
const entry = (model: string, mode: CatalogEntry['mode']): CatalogEntry => ({ v: MODEL_CATALOG_SCHEMA_VERSION, model, mode, retryAfterS: 7 });
const redis = new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 1 });
const sub = redis.duplicate();
const prefixes: string[] = [];

afterAll(async () => {
  for (const p of prefixes) {
    const ks = await redis.keys(`${p}*`);
    if (ks.length) await redis.del(...ks);
    dropInProcessState(p);
  }
  sub.disconnect();
  await redis.quit();
});

const kinds: Array<[string, (prefix: string) => { source: Record<string, unknown>; writer: CatalogViewWriter }]> = [
  ['redis', (p) => ({ source: { kind: 'redis', redis_url: 'redis://127.0.0.1:6379', key_prefix: p }, writer: new RedisCatalogView(redis, p, sub) })],
  ['memory', (p) => ({ source: { kind: 'memory', key_prefix: p }, writer: inProcessState(p).catalog })],
];

describe.each(kinds)('a router started before the scheduler (%s)', (_kind, make) => {
  let core: RouterCore;
  let writer: CatalogViewWriter;
  beforeAll(async () => {
    const prefix = `test:${randomUUID()}:`;
    prefixes.push(prefix);
    const m = make(prefix);
    writer = m.writer;
    core = await stageRouter({ endpoint_source: { ...m.source, on_demand_hold: 200 } as never });
  });
  afterAll(() => core.close());

  const chat = (model: string) =>
    core.client.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { 'content-type': 'application/json' },
      payload: { model, messages: [{ role: 'user', content: 'hi' }] },
    });

  it('answers an unknown model 503 catalog_not_loaded with Retry-After while no catalog view was read', async () => {
    const r = await chat('lazy');
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toMatch(/^\d+$/);
    expect(r.json().error).toMatchObject({ code: 'catalog_not_loaded', type: 'server_error', param: 'model' });
    const m = await core.client.inject({ method: 'GET', url: '/v1/models/lazy' });
    expect(m.statusCode).toBe(503);
  });

  it('knows a catalogued on-demand model as soon as the scheduler writes the view; then an uncatalogued name is 404', async () => {
    const changed = new Promise<void>((resolve) => {
      const off = core.state.onDemand!.onViewChange(() => (off(), resolve()));
    });
    await writer.write(new Map([['lazy', entry('lazy', 'on-demand')]]));
    await changed; // the change notification, not a poll (the next one is seconds away)
    const c = contextOf('chat', {}, { model: 'lazy', messages: [{ role: 'user', content: 'hi' }] });
    resolveModel(core.state, c);
    expect(c.model).toBe('lazy');
    const r = await chat('lazy');
    expect(r.statusCode).toBe(503);
    expect(r.json().error.code).toBe('model_loading');
    const unknown = await chat('nope');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('model_not_found');
  });

  it("resolves an adapter the scheduler's view names, by its own name and as <base>:<adapter>, to its base model", async () => {
    const changed = new Promise<void>((resolve) => {
      const off = core.state.onDemand!.onViewChange(() => (off(), resolve()));
    });
    const base = entry('lazy', 'on-demand');
    await writer.write(
      new Map([
        ['lazy', base],
        ['sql', { ...base, adapter: { name: 'sql', id: 1, scale: 0.5 } }],
      ]),
    );
    await changed;
    for (const model of ['sql', 'lazy:sql']) {
      const c = contextOf('chat', {}, { model, messages: [{ role: 'user', content: 'hi' }] });
      resolveModel(core.state, c);
      expect(c).toMatchObject({ model: 'lazy', adapter: { base: 'lazy', name: 'sql', id: 1, scale: 0.5 } });
    }
  });
});
