import { randomBytes } from 'node:crypto';
import { start, type RunningRouter } from '../src/main';
import { fakeUpstream, silentLog, type FakeUpstream } from './helpers';
import { keyWith as keyOf } from './tenancy-with-keys';

// Counter leases on with their defaults (the production configuration) and routers sharing Redis (docs/accounting.md#counter-leases):
// a key driven to exactly its limit by concurrent load from every router admits exactly the limit,
// while most of its requests were admitted from leases, not per-request Redis calls.
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());

const RUN = randomBytes(4).toString('hex');

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

  const leaseAdmissions = async (r: RunningRouter) => {
    const text = await (await fetch(`${r.adminUrl}/metrics`)).text();
    return Number(/llmgw_tenancy_counter_admissions_total\{path="lease"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
  };

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
    const fromLeases = (await Promise.all(routers.map(leaseAdmissions))).reduce((a, b) => a + b, 0);
    expect(fromLeases).toBeGreaterThan(LIMIT / 2);
  });
});
