import { routerConfigSchema, parseConfig, type RouterConfigInput } from '@llmgw/config';
import type { Principal } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { createLogger, createRegistry } from '@llmgw/observability';
import {
  type AccountingStores,
  MemoryKeyCacheBus,
  MemoryLimitCounters,
  MemoryPublishedKeys,
  MemoryUsageLedger,
  activeKeyRecord,
  revokedKeyRecord,
} from '@llmgw/stores';
import { hashApiKey, mintApiKey, periodBounds } from '@llmgw/tenancy';
import Fastify from 'fastify';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { GCProfiler } from 'node:v8';
import { DurableEnds } from './durable-end';
import { createEnabledTenancy, type TenancyOverrides } from './enabled';
import { KeyCache } from './key-cache';
import { createTenancy } from './index';
import { waitUntil } from '@llmgw/testing';

const log = createLogger({ service: 'router-test', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

const principal = (over: Partial<Principal> = {}): Principal => ({
  keyId: 'k1',
  keyPrefix: 'sk-llmgw-abcd',
  projectId: 'p1',
  teamId: 't1',
  orgId: 'o1',
  band: 'gold',
  limits: { rpm: [], tpm: [], budgets: [] },
  ...over,
});

function setup(tenancy: Partial<RouterConfigInput['tenancy']> = {}, over: Partial<TenancyOverrides> & { principal?: Principal } = {}) {
  const stores: AccountingStores = { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() };
  const key = mintApiKey();
  const calls: string[] = [];
  let current: Principal | null = over.principal ?? principal();
  const resolve = async (h: string) => {
    calls.push(h);
    if (h !== key.hash || !current) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', 'no');
    return current;
  };
  const cfg = parseConfig(routerConfigSchema, { tenancy: { enabled: true, ...tenancy } });
  const hooks = createEnabledTenancy(cfg, { log, registry: createRegistry('router') }, { stores, resolve, ...over });
  return { hooks, stores, key, calls, setPrincipal: (p: Principal | null) => (current = p) };
}

describe('router tenancy', () => {
  it('is a no-op when disabled', async () => {
    const t = createTenancy(parseConfig(routerConfigSchema, {}), { log, registry: createRegistry('router') });
    expect(t.enabled).toBe(false);
    expect(await t.authenticate(undefined)).toBeUndefined();
  });

  it('refuses to start enabled without an accounting address', () => {
    expect(() => createTenancy(parseConfig(routerConfigSchema, { tenancy: { enabled: true } }), { log, registry: createRegistry('router') })).toThrow(
      /accounting_address/,
    );
  });

  it.each([
    [undefined, 'LLMGW_ERR_AUTH_MISSING'],
    ['Basic xyz', 'LLMGW_ERR_AUTH_MISSING'],
    ['Bearer sk-llmgw-unknown', 'LLMGW_ERR_AUTH_INVALID'],
  ])('authenticate(%j) → %s', async (header, code) => {
    const { hooks } = setup();
    await expect(hooks.authenticate(header)).rejects.toMatchObject({ code });
  });

  it('resolves a key once, then serves it from the cache; an invalidation on its chain drops it', async () => {
    const { hooks, key, calls, stores } = setup();
    const p = await hooks.authenticate(`Bearer ${key.key}`);
    expect(p?.keyId).toBe('k1');
    await hooks.authenticate(`Bearer ${key.key}`);
    await hooks.authenticate(`Bearer ${key.key}`);
    expect(calls).toHaveLength(1);
    await stores.keyCacheBus.publish({ scopeType: 'team', scopeId: 'other' });
    await hooks.authenticate(`Bearer ${key.key}`);
    expect(calls).toHaveLength(1);
    await stores.keyCacheBus.publish({ scopeType: 'team', scopeId: 't1' });
    await hooks.authenticate(`Bearer ${key.key}`);
    expect(calls).toHaveLength(2);
  });

  it('refuses a revoked key as soon as its invalidation arrives', async () => {
    const { hooks, key, stores, setPrincipal } = setup();
    await hooks.authenticate(`Bearer ${key.key}`);
    setPrincipal(null);
    await stores.keyCacheBus.publish({ scopeType: 'key', scopeId: 'k1' });
    await expect(hooks.authenticate(`Bearer ${key.key}`)).rejects.toMatchObject({ code: 'LLMGW_ERR_AUTH_INVALID' });
  });

  it('refuses an expired key even from the cache', async () => {
    let t = 1_700_000_000_000;
    const { hooks, key, calls } = setup({}, { now: () => t, principal: principal({ expiresAt: t + 100 }) });
    await hooks.authenticate(`Bearer ${key.key}`);
    t += 99;
    expect((await hooks.authenticate(`Bearer ${key.key}`))?.keyId).toBe('k1');
    t += 1;
    await expect(hooks.authenticate(`Bearer ${key.key}`)).rejects.toMatchObject({ code: 'LLMGW_ERR_AUTH_INVALID' });
    expect(calls).toHaveLength(1); // refused from the cache, not by a fresh lookup
  });

  it('keeps known keys working from the cache while accounting is down, and says 503 for unknown ones', async () => {
    let up = true;
    let t = 1_700_000_000_000;
    let lookups = 0;
    const key = mintApiKey();
    const stores: AccountingStores = { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() };
    const cfg = parseConfig(routerConfigSchema, { tenancy: { enabled: true, cache_ttl: 50 } });
    const hooks = createEnabledTenancy(
      cfg,
      { log, registry: createRegistry('router') },
      {
        stores,
        now: () => t,
        resolve: async () => {
          lookups++;
          if (!up) throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'down');
          return principal();
        },
      },
    );
    await hooks.authenticate(`Bearer ${key.key}`);
    up = false;
    t += 80; // past cache_ttl: the entry is stale and accounting is asked again
    expect((await hooks.authenticate(`Bearer ${key.key}`))?.keyId).toBe('k1');
    expect(lookups).toBe(2);
    await expect(hooks.authenticate(`Bearer ${mintApiKey().key}`)).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
  });

  it('answers a key never used from its published record while accounting is down (a tombstone refuses), and counts the ResolveKey calls', async () => {
    const t = 1_700_000_000_000;
    const [used, fresh, revoked] = [mintApiKey(), mintApiKey(), mintApiKey()];
    const publishedKeys = new MemoryPublishedKeys();
    await publishedKeys.put([activeKeyRecord(fresh.hash, principal({ keyId: 'k-fresh', band: '' }), 1), revokedKeyRecord(revoked.hash, 'k-rev', 1)]);
    const stores: AccountingStores = {
      counters: new MemoryLimitCounters(),
      ledger: new MemoryUsageLedger(),
      keyCacheBus: new MemoryKeyCacheBus(),
      publishedKeys,
    };
    const registry = createRegistry('router');
    const cfg = parseConfig(routerConfigSchema, { default_band: 'bronze', tenancy: { enabled: true } });
    const hooks = createEnabledTenancy(
      cfg,
      { log, registry },
      {
        stores,
        now: () => t,
        resolve: async () => {
          throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'down');
        },
      },
    );
    expect(await hooks.authenticate(`Bearer ${fresh.key}`)).toMatchObject({ keyId: 'k-fresh', band: 'bronze' });
    for (let i = 0; i < 3; i++) expect(await hooks.authenticate(`Bearer ${fresh.key}`)).toMatchObject({ keyId: 'k-fresh' });
    await expect(hooks.authenticate(`Bearer ${revoked.key}`)).rejects.toMatchObject({ code: 'LLMGW_ERR_AUTH_INVALID' });
    await expect(hooks.authenticate(`Bearer ${used.key}`)).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
    // One call found accounting down; the clock did not move, so nothing asked it again.
    const m = (await registry.getSingleMetric('llmgw_key_resolve_total')!.get()).values;
    expect(m).toEqual([expect.objectContaining({ labels: { result: 'failed' }, value: 1 })]);
    await hooks.close();
  });

  it('enforces the allowlist with 403', async () => {
    const { hooks } = setup();
    await expect(hooks.reserve(principal({ limits: { rpm: [], tpm: [], budgets: [], allowedModels: ['a'] } }), 'b', 10)).rejects.toMatchObject({
      code: 'LLMGW_ERR_MODEL_NOT_ALLOWED',
    });
    await expect(hooks.reserve(principal({ limits: { rpm: [], tpm: [], budgets: [], allowedModels: [] } }), 'a', 10)).rejects.toMatchObject({
      code: 'LLMGW_ERR_MODEL_NOT_ALLOWED',
    });
  });

  it('answers 429 with Retry-After when RPM is spent', async () => {
    const { hooks } = setup();
    const p = principal({ limits: { rpm: [{ scope: 'key:k1', limit: 2 }], tpm: [], budgets: [] } });
    await hooks.reserve(p, 'm', 1);
    await hooks.reserve(p, 'm', 1);
    const e = await hooks.reserve(p, 'm', 1).catch((x) => x);
    expect(e).toMatchObject({ code: 'LLMGW_ERR_RATE_LIMIT_RPM' });
    expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(e.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it.each([
    [true, 'from a counter lease, its unused part returned at close'],
    [false, 'each on the shared counters (leases off)'],
  ])('with shared counters and leases %s, requests far below the limit are admitted %s', async (on) => {
    // redis_url marks the counters as shared (the stores themselves are in-process here).
    const { hooks, stores } = setup({ redis_url: 'redis://127.0.0.1:1', leases: { enabled: on } });
    let calls = 0;
    const reserve = stores.counters.reserve.bind(stores.counters);
    stores.counters.reserve = (r) => (calls++, reserve(r));
    const p = principal({ limits: { rpm: [{ scope: 'key:k1', limit: 10_000 }], tpm: [], budgets: [] } });
    for (let i = 0; i < 50; i++) await hooks.reserve(p, 'm', 10);
    if (on) expect(calls).toBeLessThan(10);
    else expect(calls).toBe(50);
    await hooks.close();
    expect((await stores.counters.windowUsage('key:k1', Date.now())).requests).toBe(50);
  });

  it("reserves TPM as the estimate and settles it to the engine's figure", async () => {
    const { hooks, stores } = setup();
    const p = principal({ limits: { rpm: [], tpm: [{ scope: 'key:k1', limit: 1000 }], budgets: [] } });
    const r = await hooks.reserve(p, 'm', 900);
    await expect(hooks.reserve(p, 'm', 200)).rejects.toMatchObject({ code: 'LLMGW_ERR_RATE_LIMIT_TPM' });
    hooks.settle(r, { promptTokens: 50, completionTokens: 50, model: 'm' });
    await waitUntil(
      async () => (await stores.counters.windowUsage('key:k1', Date.now())).tokens === 100,
      'the window settled to the engine figure (100 tokens)',
    );
    await hooks.reserve(p, 'm', 800);
  });

  it('charges budgets at the configured price and never lets concurrent requests overspend', async () => {
    const { hooks, stores } = setup({ prices: { m: { prompt_per_mtok: 2, completion_per_mtok: 4 } } });
    const p = principal({ limits: { rpm: [], tpm: [], budgets: [{ scope: 'org:o1', limitMicros: 10_000, period: 'month' }] } });
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => hooks.reserve(p, 'm', 100)));
    // Each reserves 100 tokens × 4 = 400 micro-units; 10 000 / 400 = 25.
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(25);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'LLMGW_ERR_BUDGET_EXCEEDED' });
    for (const r of results) if (r.status === 'fulfilled') hooks.settle(r.value, { promptTokens: 10, completionTokens: 10, model: 'm' });
    await waitUntil(
      async () => (await stores.counters.budgetSpent('org:o1', periodBounds('month', Date.now()).start)) === 25 * 60,
      'the 25 reservations settled at 60 micro-units each',
    );
  });

  it.each([
    [
      'budget',
      { rpm: [], tpm: [], budgets: [{ scope: 'key:k1', limitMicros: 100, period: 'day' as const }] },
      /worst-case cost \(1000 micro-units.*lower max_tokens/,
    ],
    ['tpm', { rpm: [], tpm: [{ scope: 'key:k1', limit: 100 }], budgets: [] }, /1000 tokens .* exceed .*lower max_tokens/],
  ])('says so when one request can never fit (%s)', async (_n, limits, msg) => {
    const { hooks } = setup({ prices: { m: { prompt_per_mtok: 1, completion_per_mtok: 1 } } });
    await expect(hooks.reserve(principal({ limits }), 'm', 1000)).rejects.toThrow(msg);
  });

  it('serves the zero-priced fallback model when the budget is spent', async () => {
    const { hooks } = setup({
      prices: { big: { prompt_per_mtok: 1000, completion_per_mtok: 1000 }, small: { prompt_per_mtok: 0, completion_per_mtok: 0 } },
      budget_fallback_model: 'small',
    });
    const p = principal({ limits: { rpm: [], tpm: [], budgets: [{ scope: 'key:k1', limitMicros: 150_000, period: 'day' }] } });
    expect((await hooks.reserve(p, 'big', 100)).model).toBe('big');
    expect((await hooks.reserve(p, 'big', 100)).model).toBe('small');
    expect((await hooks.reserve(p, 'small', 100)).model).toBe('small');
  });

  it('appends a priced usage record per request to the ledger', async () => {
    const { hooks, stores } = setup({ prices: { m: { prompt_per_mtok: 1, completion_per_mtok: 3 } } });
    hooks.recordUsage({
      requestId: 'r1',
      ts: 1,
      keyId: 'k1',
      projectId: 'p1',
      model: 'm',
      servedModel: 'm',
      status: 200,
      promptTokens: 10,
      completionTokens: 10,
      cachedTokens: 0,
      durationMs: 1,
    });
    hooks.recordUsage({
      requestId: 'r2',
      ts: 1,
      keyId: 'anonymous',
      projectId: 'anonymous',
      model: 'm',
      servedModel: 'm',
      status: 401,
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      durationMs: 1,
    });
    // One consumer-group read delivers the records: read until the first one is there.
    let got: Awaited<ReturnType<typeof stores.ledger.read>> = [];
    await waitUntil(async () => (got = await stores.ledger.read('c', 10, 0)).length > 0, 'a record in the ledger');
    expect(got.map((e) => [e.record.requestId, e.record.costMicros])).toEqual([['r1', 40]]);
  });

  it('settles and appends the usage record in one store call where the stores offer one', async () => {
    const counters = new MemoryLimitCounters();
    const ledger = new MemoryUsageLedger();
    const combined: Array<Promise<string>> = [];
    const stores: AccountingStores = {
      counters,
      ledger,
      keyCacheBus: new MemoryKeyCacheBus(),
      settleAndAppend: (r, actual, nowMs, rec) => {
        const done = counters.settle(r, actual, nowMs).then(() => ledger.append(rec));
        combined.push(done);
        return done;
      },
    };
    const { hooks } = setup({ prices: { m: { prompt_per_mtok: 1, completion_per_mtok: 3 } } }, { stores });
    const p = principal({ limits: { rpm: [], tpm: [{ scope: 'key:k1', limit: 1000 }], budgets: [] } });
    const rec = {
      requestId: 'r1',
      ts: 1,
      keyId: 'k1',
      projectId: 'p1',
      model: 'm',
      servedModel: 'm',
      status: 200,
      promptTokens: 10,
      completionTokens: 10,
      cachedTokens: 0,
      durationMs: 1,
    };
    hooks.settleAndRecord!(await hooks.reserve(p, 'm', 900), { promptTokens: 10, completionTokens: 10, model: 'm' }, rec);
    expect(combined).toHaveLength(1);
    await Promise.all(combined);
    expect((await counters.windowUsage('key:k1', Date.now())).tokens).toBe(20);
    expect((await ledger.read('c', 10, 0)).map((e) => [e.record.requestId, e.record.costMicros])).toEqual([['r1', 40]]);
    // An anonymous record is not appended, and its settle goes alone.
    hooks.settleAndRecord!(await hooks.reserve(p, 'm', 10), undefined, { ...rec, requestId: 'r2', keyId: 'anonymous' });
    expect(combined).toHaveLength(1);
  });

  it('GET /me shows the key its limits, window usage and spend', async () => {
    const p = principal({
      limits: { rpm: [{ scope: 'key:k1', limit: 5 }], tpm: [], budgets: [{ scope: 'team:t1', limitMicros: 1000, period: 'day' }], allowedModels: ['m'] },
    });
    const { hooks, key } = setup({ prices: { m: { prompt_per_mtok: 1, completion_per_mtok: 1 } } }, { principal: p });
    await hooks.reserve(p, 'm', 100);
    const app = Fastify();
    hooks.registerRoutes!(app);
    const res = await app.inject({ method: 'GET', url: '/me', headers: { authorization: `Bearer ${key.key}` } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      key_id: 'k1',
      band: 'gold',
      allowed_models: ['m'],
      effective: { rpm: 5 },
      limits: { rpm: [{ scope: 'key:k1', limit: 5, used: 1 }] },
    });
    expect(body.budgets[0]).toMatchObject({ scope: 'team:t1', limit_micros: 1000, spent_micros: 100 });
    const anon = await app.inject({ method: 'GET', url: '/me' });
    expect(anon.statusCode).toBe(401);
    expect(anon.json().error.code).toBe('missing_api_key');
    await app.close();
  });

  it("holds a response's end until its usage record is in the ledger", async () => {
    const { hooks, stores } = setup();
    let releaseAppend!: () => void;
    const gate = new Promise<void>((r) => (releaseAppend = r));
    const append = stores.ledger.append.bind(stores.ledger);
    let appending = false;
    stores.ledger.append = async (rec) => {
      appending = true;
      await gate;
      return append(rec);
    };
    const app = Fastify();
    let endedBeforeRecord: boolean | undefined;
    // The router calls holdEnd for each client API request before its stages (wiring/request-handler.ts).
    app.post('/v1/chat/completions', (req, reply) => {
      reply.hijack();
      hooks.holdEnd!('r-held', reply.raw);
      reply.raw.writeHead(200, { 'content-type': 'application/json' });
      reply.raw.end('{"ok":true}');
      endedBeforeRecord = reply.raw.writableEnded;
      hooks.recordUsage({
        requestId: 'r-held',
        ts: 1,
        keyId: 'k1',
        projectId: 'p1',
        model: 'm',
        servedModel: 'm',
        status: 200,
        promptTokens: 1,
        completionTokens: 1,
        cachedTokens: 0,
        durationMs: 1,
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/chat/completions`;
    let done = false;
    const p = fetch(url, { method: 'POST', body: '{}' }).then(async (r) => {
      done = true;
      return r.text();
    });
    // The handler ended the response and its record waits at the gate: the end is held, not written.
    await waitUntil(() => appending, 'the usage record to reach the ledger append');
    expect(endedBeforeRecord).toBe(false);
    expect(done).toBe(false);
    releaseAppend();
    expect(await p).toBe('{"ok":true}');
    expect((await stores.ledger.depth()).length).toBe(1);
    await app.close();
  });
});

describe('key cache', () => {
  it.each([
    ['key', 'k1', true],
    ['project', 'p1', true],
    ['team', 't1', true],
    ['org', 'o1', true],
    ['org', 'o2', false],
    ['all', '', true],
  ] as const)('invalidation %s:%s drops the entry = %s', (scopeType, scopeId, dropped) => {
    const c = new KeyCache(60_000, 1000);
    c.set(hashApiKey('x'), principal(), 0);
    expect(c.invalidate({ scopeType, scopeId }) === 1).toBe(dropped);
  });

  it('expires negative entries sooner than positive ones', () => {
    const c = new KeyCache(60_000, 1000);
    c.set('a', principal(), 0);
    c.set('b', null, 0);
    expect(c.get('a', 2000)?.fresh).toBe(true);
    expect(c.get('b', 2000)?.fresh).toBe(false);
  });
});

describe('durable ends', () => {
  function fakeRes() {
    const ended: unknown[] = [];
    const res: any = { end: (...a: unknown[]) => (ended.push(a), res), once: () => res };
    return { res, ended };
  }

  it('holds each end until its record is released, in arrival order for a repeated id', async () => {
    const d = new DurableEnds();
    const a = fakeRes();
    const b = fakeRes();
    d.track('same', a.res);
    d.track('same', b.res);
    a.res.end('A');
    b.res.end('B');
    expect(a.ended).toEqual([]);
    expect(b.ended).toEqual([]);
    d.release('same');
    expect(a.ended).toEqual([['A']]);
    expect(b.ended).toEqual([]);
    d.release('same');
    expect(b.ended).toEqual([['B']]);
    expect(d.size).toBe(0);
  });

  it('lets an end through immediately once its record is already in', async () => {
    const waited: number[] = [];
    const d = new DurableEnds(5_000, undefined, (ms) => waited.push(ms));
    const a = fakeRes();
    d.track('x', a.res);
    d.release('x');
    a.res.end('A');
    expect(a.ended).toEqual([['A']]);
    // Nothing was held, so no wait is reported (llmgw_usage_durable_hold_seconds counts held ends only).
    expect(waited).toEqual([]);
  });

  it('reports how long each held end waited for its record', async () => {
    const waited: number[] = [];
    const d = new DurableEnds(5_000, undefined, (ms) => waited.push(ms));
    const a = fakeRes();
    d.track('y', a.res);
    a.res.end('A');
    const heldAt = performance.now();
    // Wait for the clock to move past the moment the end was held, without sleeping a fixed time.
    while (performance.now() - heldAt < 2) await new Promise((r) => setImmediate(r));
    d.release('y');
    expect(a.ended).toEqual([['A']]);
    expect(waited).toHaveLength(1);
    expect(waited[0]).toBeGreaterThanOrEqual(2);
    expect(waited[0]).toBeLessThan(performance.now() - heldAt + 1);
  });

  it('keeps no released request alive through young-generation GCs', async () => {
    // Every request's objects used to survive each scavenge until the next full GC: the hold put a
    // closure on each response and kept holds in a Map that gained and lost a key per request
    // (docs/performance.md, "Why every request outlived its scavenges").
    // A response as Node makes them: `end` on the prototype, the request's objects hanging off it.
    class Response extends EventEmitter {
      constructor(readonly body: object[]) {
        super();
      }
      end(): this {
        return this;
      }
    }
    const d = new DurableEnds();
    const request = (i: number): any => new Response(Array.from({ length: 40 }, (_, k) => ({ k, text: `part ${k} of ${i}`, tokens: [i, k, i + k, i * k] })));
    const serve = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const res = request(i);
        d.track(`req-${i}`, res);
        res.end('done');
        d.release(`req-${i}`);
        res.emit('close');
        if (i % 50 === 0) await new Promise<void>((r) => setImmediate(r));
      }
    };
    await serve(0, 20_000); // the hold's own objects reach the old generation first
    const profiler = new GCProfiler();
    profiler.start();
    await serve(20_000, 80_000);
    const scavenges = profiler.stop()!.statistics.filter((s) => s.gcType === 'Scavenge');
    const young = (h: (typeof scavenges)[number]['beforeGC']) => h.heapSpaceStatistics.find((x) => x.spaceName === 'new_space')!.spaceUsedSize;
    const allocated = scavenges.reduce((a, s) => a + young(s.beforeGC), 0);
    const survived = scavenges.reduce((a, s) => a + young(s.afterGC), 0);
    expect(scavenges.length).toBeGreaterThanOrEqual(5);
    expect(d.size).toBe(0);
    // About a third of everything allocated survived before; a few per mille after.
    expect(survived / allocated).toBeLessThan(0.05);
  });

  it('releases an end whose record never comes after the hold timeout, and counts only those', () => {
    jest.useFakeTimers();
    try {
      let timeouts = 0;
      const d = new DurableEnds(1000, () => timeouts++);
      const late = fakeRes();
      const onTime = fakeRes();
      d.track('late', late.res);
      d.track('on-time', onTime.res);
      late.res.end('L');
      onTime.res.end('O');
      jest.advanceTimersByTime(999);
      expect(late.ended).toEqual([]);
      d.release('on-time');
      expect(onTime.ended).toEqual([['O']]);
      jest.advanceTimersByTime(1);
      expect(late.ended).toEqual([['L']]);
      expect(timeouts).toBe(1);
      d.release('late'); // the record arriving afterwards changes nothing
      expect(late.ended).toEqual([['L']]);
      expect(timeouts).toBe(1);
    } finally {
      jest.useRealTimers();
    }
  });
});
