import { createEngineKeyFile, deriveEngineSecret, endpointKeys, RedisEndpointWriter, type EndpointInfo } from '@llmgw/endpoints';
import { createLogger } from '@llmgw/observability';
import { startService, type RunningService } from '@llmgw/service';
import { waitUntil } from '@llmgw/testing';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routerService, type RouterHandle } from './main';

/**
 * What a router sends an engine as `authorization` (docs/placement.md, "Engine
 * secrets"): a placed replica (`auth: replica-key` in its endpoint record) gets
 * its secret derived from the engine key and the replica id; a static endpoint
 * its `api_key_file`; nobody the client's own key.
 */
describe('router → engine authorization', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-engine-auth-'));
  const prefix = `test:engine-auth:${randomBytes(5).toString('hex')}:`;
  const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  const seen: IncomingHttpHeaders[] = [];
  let upstream: Server;
  let url = '';
  const running: RunningService<RouterHandle>[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () => {
        const body = JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await Promise.all(running.map((r) => r.close()));
    await new Promise((r) => upstream.close(r));
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (config: object) => {
    const r = await startService(routerService(), {
      config: { listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', scrape_interval: 60_000, ...config },
      log: createLogger({ service: 'router', level: 'silent' }),
    });
    running.push(r);
    return r.service.core;
  };
  const chat = (core: Awaited<ReturnType<typeof start>>, model: string) =>
    core.client.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      payload: { model, messages: [{ role: 'user', content: 'x' }] },
      headers: { authorization: 'Bearer client-api-key' },
    });

  it('a placed replica gets its derived secret in place of the client key; an endpoint without auth gets no authorization', async () => {
    const keyFile = join(dir, 'engine.key');
    const key = createEngineKeyFile(keyFile);
    const base = { url, engine: 'vllm' as const, pool: 'default', priority: 0, weight: 100, draining: false };
    const records: EndpointInfo[] = [
      { ...base, id: 'rep-7f3a', model: 'placed', auth: 'replica-key' },
      { ...base, id: 'plain', model: 'open' },
    ];
    await new RedisEndpointWriter(redis, prefix).replace(records);
    // The record in Redis names the marker, never a secret.
    const stored = await redis.hgetall(endpointKeys(prefix).hash);
    expect(JSON.parse(stored['rep-7f3a'])).toMatchObject({ auth: 'replica-key' });
    expect(JSON.stringify(stored)).not.toContain(deriveEngineSecret(key, 'rep-7f3a'));

    const core = await start({ engine_key_file: keyFile, endpoint_source: { kind: 'redis', redis_url: 'redis://127.0.0.1:6379', key_prefix: prefix } });
    await waitUntil(async () => (await chat(core, 'placed')).statusCode === 200, 'the router sees the placed endpoint', { timeoutMs: 10_000, everyMs: 50 });
    const last = seen.at(-1)!;
    expect(last.authorization).toBe(`Bearer ${deriveEngineSecret(key, 'rep-7f3a')}`);
    expect((await chat(core, 'open')).statusCode).toBe(200);
    expect(seen.at(-1)!.authorization).toBeUndefined();
    expect(seen.some((h) => String(h.authorization).includes('client-api-key'))).toBe(false);
  });

  it("a static endpoint's api_key_file is read at start and sent as its bearer", async () => {
    const f = join(dir, 'static.key');
    writeFileSync(f, 'static-engine-key\n', { mode: 0o600 });
    const core = await start({ models: [{ name: 's' }], endpoints: [{ name: 'st', url, model: 's', api_key_file: f }] });
    expect((await chat(core, 's')).statusCode).toBe(200);
    expect(seen.at(-1)!.authorization).toBe('Bearer static-engine-key');
  });

  it('refuses to start on an engine key file others can read', async () => {
    const f = join(dir, 'loose.key');
    writeFileSync(f, randomBytes(32).toString('hex'), { mode: 0o644 });
    await expect(start({ engine_key_file: f, models: [{ name: 's' }], endpoints: [{ name: 'st', url, model: 's' }] })).rejects.toThrow(
      /readable by group or others/,
    );
  });
});
