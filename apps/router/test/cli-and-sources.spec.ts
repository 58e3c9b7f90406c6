import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { normaliseEndpoint, RedisEndpointWriter } from '@llmgw/endpoints';
import { spawnRole, waitUntil } from '@llmgw/testing';
import { start } from '../src/main';
import { fakeUpstream, silentLog } from './helpers';

const chat = (url: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
  });

describe('llmgw router as a process', () => {
  it('serves from --endpoint flags, exposes admin, and exits 0 on SIGTERM', async () => {
    const up = await fakeUpstream();
    const r = await spawnRole('router', ['--endpoint', `a=${up.url}=m`, '--model-alias', 'alias=m', '--port', '0', '--admin-port', '0']);
    try {
      expect(r.urls.client).toBe(r.url);
      const res = await chat(r.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-llmgw-replica')).toBe('a');
      expect((await fetch(`${r.urls.admin}/readyz`)).status).toBe(200);
      const completed = () =>
        r
          .output()
          .map((l) => (l.startsWith('{') ? JSON.parse(l) : {}))
          .find((l) => l.msg === 'request completed');
      await waitUntil(() => completed() !== undefined, 'completed() !== undefined', { everyMs: 25 });
      const log = completed();
      expect(log).toMatchObject({ service: 'router', model: 'm', endpoint: 'a', status: 200 });
      expect(log.reqId).toEqual(res.headers.get('x-request-id'));
    } finally {
      expect(await r.stop()).toBe(0);
      await up.close();
    }
  });
});

describe('router on a Redis endpoint source', () => {
  const prefix = `test:${randomUUID()}:`;
  let redis: Redis;
  let writer: RedisEndpointWriter;
  beforeAll(() => {
    redis = new Redis('redis://127.0.0.1:6379');
    writer = new RedisEndpointWriter(redis, prefix);
  });
  afterAll(async () => {
    await writer.clear();
    redis.disconnect();
  });

  it('routes to what the control plane publishes, follows changes, and keeps serving the cached list', async () => {
    const a = await fakeUpstream();
    const b = await fakeUpstream();
    await writer.replace([normaliseEndpoint({ name: 'ra', url: a.url, model: 'm' })]);
    const r = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        endpoint_source: { kind: 'redis', redis_url: 'redis://127.0.0.1:6379', key_prefix: prefix },
      },
    });
    try {
      expect((await chat(r.url)).headers.get('x-llmgw-replica')).toBe('ra');
      await writer.replace([normaliseEndpoint({ name: 'rb', url: b.url, model: 'm' })]);
      await waitUntil(() => r.core.source.all()[0]?.id === 'rb', "r.core.source.all()[0]?.id === 'rb'", { everyMs: 25 });
      expect((await chat(r.url)).headers.get('x-llmgw-replica')).toBe('rb');
      // The store goes away: the router keeps the last list.
      const src = r.core.source as unknown as { cmd: Redis; reload(): Promise<void> };
      const down = jest.spyOn(src.cmd, 'hgetall').mockRejectedValue(new Error('connection lost'));
      await src.reload();
      expect(down).toHaveBeenCalled();
      expect(r.core.source.all().map((e) => e.id)).toEqual(['rb']);
      expect((await chat(r.url)).status).toBe(200);
    } finally {
      await r.close();
      await a.close();
      await b.close();
    }
  });
});
