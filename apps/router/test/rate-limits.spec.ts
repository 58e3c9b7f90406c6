import { randomBytes } from 'node:crypto';
import { start, type RunningRouter } from '../src/main';
import { fakeUpstream, silentLog, type FakeUpstream } from './helpers';
import { keyWith as keyOf } from './tenancy-with-keys';

// Limits through the router on the real Redis counters: OpenAI's rate-limit headers on every
// answer of a limited key, and N rpm meaning exactly N accepted across routers sharing Redis.
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());

const RUN = randomBytes(4).toString('hex');
const keyWith = (limits: Parameters<typeof keyOf>[0]) => keyOf(limits, `rl-${RUN}`);

describe('rate limits through the router (Redis counters)', () => {
  let up: FakeUpstream;
  const routers: RunningRouter[] = [];
  beforeAll(async () => {
    up = await fakeUpstream();
    for (let i = 0; i < 3; i++) {
      routers.push(
        await start({
          log: silentLog(),
          config: {
            listen: '127.0.0.1:0',
            admin_listen: '127.0.0.1:0',
            scrape_interval: 60_000,
            tenancy: { enabled: true, redis_url: 'redis://127.0.0.1:6379', key_prefix: `llmgw-test-${RUN}:` },
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
    });

  it('sends x-ratelimit-* on every answer of a limited key, and on its 429', async () => {
    const key = keyWith({ rpm: [{ scope: `key:rl-${RUN}`, limit: 2 }], tpm: [{ scope: `project:rl-${RUN}`, limit: 100_000 }] });
    const a = await chat(routers[0], key);
    expect(a.status).toBe(200);
    expect(a.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(a.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(a.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+(\.\d+)?(ms|s)$|^\d+m\d+(\.\d+)?s$/);
    expect(a.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
    expect(Number(a.headers.get('x-ratelimit-remaining-tokens'))).toBeLessThan(100_000);
    const b = await chat(routers[1], key);
    expect(b.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const c = await chat(routers[2], key);
    expect(c.status).toBe(429);
    expect(((await c.json()) as any).error).toMatchObject({ code: 'rate_limit_exceeded', type: 'requests' });
    expect(c.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(c.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(Number(c.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a key without RPM/TPM limits gets no rate-limit headers', async () => {
    const r = await chat(routers[0], keyWith({}));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit-requests')).toBeNull();
  });

  it('N rpm across three routers sharing Redis means exactly N accepted', async () => {
    const N = 25;
    const key = keyWith({ rpm: [{ scope: `key:exact-${RUN}`, limit: N }] });
    // 3N requests at once, spread over the routers: the counter script admits exactly N.
    const statuses = await Promise.all(
      Array.from({ length: 3 * N }, (_v, i) => chat(routers[i % 3], key).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(N);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2 * N);
  });
});
