import type { ServerResponse } from 'node:http';
import { start, type RunningRouter } from '../src/main';
import { chatJson, fakeUpstream, metricValue, silentLog, until, type FakeUpstream } from './helpers';

// Connections per engine are bounded by config; a request beyond the bound waits for a free
// connection, and the wait is visible in /metrics instead of invisible until a timeout.
describe('upstream connection pool per endpoint', () => {
  let up: FakeUpstream;
  let router: RunningRouter;
  const held: ServerResponse[] = [];
  beforeAll(async () => {
    up = await fakeUpstream((_req, res) => held.push(res));
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 60_000,
        upstream_connections: 8,
        upstream_connections_per_endpoint: { small: 1 },
        endpoints: [{ name: 'small', url: up.url, model: 'm' }],
      },
    });
  });
  afterAll(async () => {
    await router?.close();
    await up?.close();
  });

  it('holds a second request for a one-connection endpoint and shows it as waiting', async () => {
    const send = () =>
      fetch(`${router.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }) });
    const first = send();
    await until(() => held.length === 1, 10_000);
    const second = send();
    await until(async () => (await metricValue(router.adminUrl, 'llmgw_upstream_waiting', { replica: 'small' })) === 1, 10_000);
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_connections', { replica: 'small' })).toBe(1);
    expect(held).toHaveLength(1);
    const answer = (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(chatJson());
    };
    answer(held[0]);
    expect((await first).status).toBe(200);
    await until(() => held.length === 2, 10_000);
    answer(held[1]);
    expect((await second).status).toBe(200);
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_waiting', { replica: 'small' })).toBe(0);
  });
});

// An endpoint that declares its engine's batch slots gets a pool at least that large: every
// request the engine can run at once has its own connection, whatever upstream_connections says.
describe('upstream pool sized by the declared max_num_seqs', () => {
  let up: FakeUpstream;
  let router: RunningRouter;
  const held: ServerResponse[] = [];
  beforeAll(async () => {
    up = await fakeUpstream((_req, res) => held.push(res));
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 60_000,
        upstream_connections: 1,
        endpoints: [{ name: 'wide', url: up.url, model: 'm', max_num_seqs: 3 }],
      },
    });
  });
  afterAll(async () => {
    await router?.close();
    await up?.close();
  });

  it('opens max_num_seqs connections before making a request wait', async () => {
    const send = () =>
      fetch(`${router.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }) });
    const sent = [send(), send(), send()];
    await until(() => held.length === 3, 10_000);
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_waiting', { replica: 'wide' })).toBe(0);
    expect(await metricValue(router.adminUrl, 'llmgw_upstream_connections', { replica: 'wide' })).toBe(3);
    for (const res of held) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(chatJson());
    }
    for (const r of await Promise.all(sent)) expect(r.status).toBe(200);
  });
});
