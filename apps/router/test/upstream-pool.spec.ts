import type { ServerResponse } from 'node:http';
import { start, type RunningRouter } from '../src/main';
import { chatJson, fakeUpstream, metricValue, silentLog, type FakeUpstream } from './helpers';
import { waitUntil } from '@llmgw/testing';

/** A router in front of one fake engine that holds every request until the test answers it. */
function holdingRouter(config: Record<string, unknown>, endpoint: { name: string } & Record<string, unknown>) {
  const rig: { up?: FakeUpstream; router?: RunningRouter; held: ServerResponse[] } = { held: [] };
  beforeAll(async () => {
    rig.up = await fakeUpstream((_req, res) => rig.held.push(res));
    rig.router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 60_000,
        ...config,
        endpoints: [{ ...endpoint, url: rig.up.url, model: 'm' }],
      },
    });
  });
  afterAll(async () => {
    await rig.router?.close();
    await rig.up?.close();
  });
  return rig;
}

const send = (router: RunningRouter) =>
  fetch(`${router.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
  });

const answer = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(chatJson());
};

// Connections per engine are bounded by config; a request beyond the bound waits for a free
// connection, and the wait is visible in /metrics instead of invisible until a timeout.
describe('upstream connection pool per endpoint', () => {
  const rig = holdingRouter({ upstream_connections: 8, upstream_connections_per_endpoint: { small: 1 } }, { name: 'small' });

  it('holds a second request for a one-connection endpoint and shows it as waiting', async () => {
    const router = rig.router!;
    const held = rig.held;
    const first = send(router);
    await waitUntil(() => held.length === 1, 'held.length === 1', { timeoutMs: 10_000, everyMs: 25 });
    const second = send(router);
    await waitUntil(
      async () => (await metricValue(router.adminUrl, 'llmgw_upstream_waiting', { replica: 'small' })) === 1,
      "(await metricValue(router.adminUrl, 'llmgw_upstream_waiting', { replica: 'small' })) === 1",
      { timeoutMs: 10_000, everyMs: 25 },
    );
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_connections', { replica: 'small' })).toBe(1);
    expect(held).toHaveLength(1);
    answer(held[0]);
    expect((await first).status).toBe(200);
    await waitUntil(() => held.length === 2, 'held.length === 2', { timeoutMs: 10_000, everyMs: 25 });
    answer(held[1]);
    expect((await second).status).toBe(200);
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_waiting', { replica: 'small' })).toBe(0);
  });
});

// An endpoint that declares its engine's batch slots gets a pool at least that large: every
// request the engine can run at once has its own connection, whatever upstream_connections says.
describe('upstream pool sized by the declared max_num_seqs', () => {
  const rig = holdingRouter({ upstream_connections: 1 }, { name: 'wide', max_num_seqs: 3 });

  it('opens max_num_seqs connections before making a request wait', async () => {
    const router = rig.router!;
    const sent = [send(router), send(router), send(router)];
    await waitUntil(() => rig.held.length === 3, 'rig.held.length === 3', { timeoutMs: 10_000, everyMs: 25 });
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_waiting', { replica: 'wide' })).toBe(0);
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_connections', { replica: 'wide' })).toBe(3);
    for (const res of rig.held) answer(res);
    for (const r of await Promise.all(sent)) expect(r.status).toBe(200);
  });
});

// With upstream_connections unset the pool has no bound: an endpoint that declares no max_num_seqs
// is not capped at some default (formerly 1024 per engine, so 5000 streams over three such engines
// stalled at 3072 open). Admission, on declared or learned slots, is what holds requests back.
describe('upstream pool of an endpoint that declares nothing, upstream_connections unset', () => {
  const rig = holdingRouter({}, { name: 'open' });
  const N = 1100;

  it(`opens a connection per request in flight, past 1024 (${N} held at once)`, async () => {
    const router = rig.router!;
    const settled: Record<string, number> = {};
    const sent = Array.from({ length: N }, () =>
      send(router).then(
        (r) => ((settled[r.status] = (settled[r.status] ?? 0) + 1), r),
        (e: Error) => ((settled[e.message] = (settled[e.message] ?? 0) + 1), Promise.reject(e)),
      ),
    );
    // A request answered before the upstream holds it never will be: say so instead of waiting out the timeout.
    await waitUntil(() => rig.held.length === N || Object.keys(settled).length > 0, 'rig.held.length === N', {
      timeoutMs: 60_000,
      everyMs: 25,
      seen: () => ({ held: rig.held.length, settled }),
    });
    expect({ held: rig.held.length, settled }).toEqual({ held: N, settled: {} });
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_waiting', { replica: 'open' })).toBe(0);
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_connections', { replica: 'open' })).toBe(N);
    for (const res of rig.held) answer(res);
    const statuses = (await Promise.all(sent)).map((r) => r.status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  }, 90_000);
});
