import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_BAND_CONFIGS, parseConfig, routerConfigSchema } from '@llmgw/config';
import { StaticEndpointSource } from '@llmgw/endpoints';
import { createLogger } from '@llmgw/observability';
import { createRouter, type RouterCore } from '../router';
import { EnginePriority } from './engine-priority';

describe('EnginePriority', () => {
  const source = new StaticEndpointSource([
    { name: 'p', url: 'http://127.0.0.1:9', model: 'm', scheduling_policy: 'priority' },
    { name: 'f', url: 'http://127.0.0.1:9', model: 'm' },
  ]);
  const ep = new EnginePriority(DEFAULT_BAND_CONFIGS, source);
  afterAll(() => ep.close());

  it.each([
    ['platinum', 0],
    ['gold', 1],
    ['silver', 2],
    ['bronze', 3],
    ['unknown', 3],
  ])('band %s → vLLM priority %d (lower is served first)', (band, p) => {
    expect(ep.forBand(band)).toBe(p);
    expect(ep.forEndpoint('p', band)).toBe(p);
    expect(ep.forEndpoint('f', band)).toBeUndefined();
  });

  it('sets the band on a priority endpoint and strips a client-chosen priority elsewhere', () => {
    const a: Record<string, unknown> = { model: 'm', priority: -100 };
    expect(ep.apply(a, 'p', 'bronze')).toBe(true);
    expect(a.priority).toBe(3);
    expect(ep.apply(a, 'p', 'bronze')).toBe(false);
    expect(ep.apply(a, 'f', 'bronze')).toBe(true);
    expect('priority' in a).toBe(false);
    expect(ep.apply(a, 'f', 'bronze')).toBe(false);
  });

  it('follows endpoint changes', () => {
    const src = new StaticEndpointSource([{ name: 'x', url: 'http://127.0.0.1:9', model: 'm' }]);
    const e = new EnginePriority(
      [
        { name: 'hi', priority: 2 },
        { name: 'lo', priority: 1 },
      ],
      src,
    );
    expect(e.forEndpoint('x', 'lo')).toBeUndefined();
    src.set([{ name: 'x', url: 'http://127.0.0.1:9', model: 'm', scheduling_policy: 'priority' }]);
    expect(e.forEndpoint('x', 'lo')).toBe(1);
    e.close();
  });
});

describe('the router sends the band as priority to endpoints configured with scheduling_policy: priority', () => {
  const bodies: Record<string, Array<Record<string, unknown>>> = { prio: [], fcfs: [] };
  const servers: Server[] = [];
  let core: RouterCore;

  const stub = (name: string) =>
    new Promise<string>((resolve) => {
      const s = createServer((req, res) => {
        if (req.method !== 'POST') {
          // the router's scraper asks for /metrics: nothing to report
          res.writeHead(404).end();
          return;
        }
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          bodies[name].push(JSON.parse(raw));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              id: 'x',
              object: 'chat.completion',
              created: 0,
              model: 'm',
              choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
            }),
          );
        });
      });
      servers.push(s);
      s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`));
    });

  beforeAll(async () => {
    const [prio, fcfs] = await Promise.all([stub('prio'), stub('fcfs')]);
    const cfg = parseConfig(routerConfigSchema, {
      models: [{ name: 'm' }, { name: 'n' }],
      endpoints: [
        { name: 'prio', url: prio, model: 'm', scheduling_policy: 'priority' },
        { name: 'fcfs', url: fcfs, model: 'n' },
      ],
      scrape_interval: 60_000,
    });
    core = await createRouter(cfg, { log: createLogger({ service: 'router', level: 'silent' }) });
  });
  afterAll(async () => {
    await core.close();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  const post = (model: string, band: string, extra: Record<string, unknown> = {}) =>
    core.client.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      payload: JSON.stringify({ model, messages: [{ role: 'user', content: 'x' }], ...extra }),
      headers: { 'content-type': 'application/json', 'x-llmgw-band': band },
    });

  it.each([
    ['platinum', 0],
    ['silver', 2],
    ['bronze', 3],
  ])('%s → priority %d, overriding what the client sent', async (band, p) => {
    const res = await post('m', band, { priority: -5 });
    expect(res.statusCode).toBe(200);
    expect(bodies.prio.at(-1)).toMatchObject({ model: 'm', priority: p });
  });

  it('an fcfs endpoint gets no priority, even when the client sent one', async () => {
    expect((await post('n', 'bronze', { priority: 7 })).statusCode).toBe(200);
    expect((await post('n', 'platinum')).statusCode).toBe(200);
    expect(bodies.fcfs).toHaveLength(2);
    for (const b of bodies.fcfs) expect('priority' in b).toBe(false);
  });
});
