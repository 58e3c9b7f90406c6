import { randomBytes } from 'node:crypto';
import { start, type RunningRouter } from '../src/main';
import { fakeUpstream, silentLog, type FakeUpstream } from './helpers';
import { keyWith as keyOf } from './tenancy-with-keys';
import { RedisLimitCounters } from '@llmgw/stores';
import { costMicros, periodBounds } from '@llmgw/tenancy';
import { waitUntil } from '@llmgw/testing';
import Redis from 'ioredis';

// Counter leases on with their defaults (the production configuration) and routers sharing Redis (docs/accounting.md#counter-leases):
// a key driven to exactly its limit by concurrent load from every router admits exactly the limit,
// while most of its requests were admitted from leases, not per-request Redis calls.
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());

const RUN = randomBytes(4).toString('hex');

const leaseAdmissionsOf = async (r: RunningRouter) => {
  const text = await (await fetch(`${r.adminUrl}/metrics`)).text();
  return Number(/llmgw_tenancy_counter_admissions_total\{path="lease"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
};

describe.each([2, 4])('a key at its limit under load from %i routers with counter leases', (n) => {
  let up: FakeUpstream;
  const routers: RunningRouter[] = [];
  beforeAll(async () => {
    up = await fakeUpstream();
    for (let i = 0; i < n; i++) {
      routers.push(
        await start({
          log: silentLog(),
          config: {
            listen: '127.0.0.1:0',
            admin_listen: '127.0.0.1:0',
            scrape_interval: 60_000,
            tenancy: { enabled: true, redis_url: 'redis://127.0.0.1:6379', key_prefix: `llmgw-test-${RUN}-${n}:` },
            endpoints: [{ name: 'a', url: up.url, model: 'm' }],
          },
        }),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(routers.map((r) => r.close()));
    await up?.close();
  });

  const chat = (router: RunningRouter, key: string) =>
    fetch(`${router.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }),
    }).then(async (r) => (await r.arrayBuffer(), r.status));

  it('admits exactly the limit, most of it from leases', async () => {
    const LIMIT = 240;
    const key = keyOf(
      { rpm: [{ scope: `key:at-limit-${RUN}-${n}`, limit: LIMIT }], tpm: [{ scope: `project:at-limit-${RUN}-${n}`, limit: 1_000_000 }] },
      `al${n}-${RUN}`,
    );
    let ok = 0;
    const count = (s: number) => {
      expect([200, 429]).toContain(s);
      if (s === 200) ok++;
      return s;
    };
    // Warm-up: a few requests per router, so each has seen the key's headroom and rate.
    for (const r of routers) for (let i = 0; i < 3; i++) count(await chat(r, key));
    // Concurrent load from every router: 6 clients each, every client until it is refused.
    await Promise.all(
      routers.flatMap((r) =>
        Array.from({ length: 6 }, async () => {
          while (count(await chat(r, key)) === 200);
        }),
      ),
    );
    // Then each router in turn until a whole round admits nothing: what any router still held is spent.
    for (;;) {
      const before = ok;
      for (const r of routers) while (count(await chat(r, key)) === 200);
      if (ok === before) break;
    }
    expect(ok).toBe(LIMIT);
    const fromLeases = (await Promise.all(routers.map(leaseAdmissionsOf))).reduce((a, b) => a + b, 0);
    expect(fromLeases).toBeGreaterThan(LIMIT / 2);
  });
});

// The budget part of a lease is a hold beside the spent counter (docs/accounting.md#counter-leases): a key
// driven to its budget from two routers is never charged more than the budget, and once the routers have
// returned their leases the spent counter is exactly what the admitted requests cost.
describe('a key at its budget under load from 2 routers with counter leases', () => {
  const PRICE = { prompt_per_mtok: 1000, completion_per_mtok: 1000 };
  // The fake upstream reports 3 prompt and 1 completion tokens.
  const COST = costMicros({ promptPerMTok: 1000, completionPerMTok: 1000 }, 3, 1);
  const prefix = `llmgw-test-${RUN}-budget:`;

  it('charges at most the budget while admitting from leases, and returns the unused holds at shutdown', async () => {
    const up = await fakeUpstream();
    const redis = new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 1 });
    const routers: RunningRouter[] = [];
    try {
      for (let i = 0; i < 2; i++)
        routers.push(
          await start({
            log: silentLog(),
            config: {
              listen: '127.0.0.1:0',
              admin_listen: '127.0.0.1:0',
              scrape_interval: 60_000,
              tenancy: { enabled: true, redis_url: 'redis://127.0.0.1:6379', key_prefix: prefix, prices: { m: PRICE } },
              endpoints: [{ name: 'a', url: up.url, model: 'm' }],
            },
          }),
        );
      const LIMIT = 600 * COST;
      const scope = `key:at-budget-${RUN}`;
      const key = keyOf({ budgets: [{ scope, limitMicros: LIMIT, period: 'day' }] }, `ab-${RUN}`);
      const chat = (router: RunningRouter) =>
        fetch(`${router.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 }),
        }).then(async (r) => (await r.arrayBuffer(), r.status));
      let ok = 0;
      const count = (s: number) => {
        expect([200, 429]).toContain(s);
        if (s === 200) ok++;
        return s;
      };
      for (const r of routers) for (let i = 0; i < 3; i++) count(await chat(r));
      await Promise.all(
        routers.flatMap((r) =>
          Array.from({ length: 6 }, async () => {
            while (count(await chat(r)) === 200);
          }),
        ),
      );
      expect(ok * COST).toBeLessThanOrEqual(LIMIT);
      expect(ok).toBeGreaterThan(100);
      const fromLeases = (await Promise.all(routers.map(leaseAdmissionsOf))).reduce((a, b) => a + b, 0);
      expect(fromLeases).toBeGreaterThan(ok / 10);
      await Promise.all(routers.splice(0).map((r) => r.close()));
      const counters = new RedisLimitCounters(redis, prefix);
      const start_ = periodBounds('day', Date.now()).start;
      let spent = 0;
      await waitUntil(
        async () => (spent = await counters.budgetSpent(scope, start_)) === ok * COST,
        () => `spent ${spent} != ${ok} × ${COST}`,
      );
    } finally {
      await Promise.all(routers.map((r) => r.close()));
      await up.close();
      await redis.quit();
    }
  });
});
