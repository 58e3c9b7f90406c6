import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { createLogger } from '@llmgw/observability';
import { MemoryLeaderLock } from '@llmgw/stores';
import { defineService, redisOptions, redisTarget, startService, type ServiceContext } from './index';
import { waitUntil } from '@llmgw/contracts/wait';

// A redis-server of this test's own (killed and restarted to make an outage); libs cannot use @llmgw/testing.
async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => res(p));
    });
  });
}
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
const until = (cond: () => boolean | Promise<boolean>, what: string) => waitUntil(cond, what, { timeoutMs: 20_000 });
async function redisServer() {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await until(() => accepts(port), `redis-server on ${port}`);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    async stop() {
      const c = child!;
      child = undefined;
      if (c.exitCode !== null) return;
      await new Promise<void>((r) => (c.once('exit', () => r()), c.kill('SIGKILL')));
    },
  };
}

function capture() {
  const stream = new PassThrough();
  const lines: any[] = [];
  stream.on('data', (b: Buffer) =>
    b
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => lines.push(JSON.parse(l))),
  );
  return { log: createLogger({ service: 'demo', level: 'debug', destination: stream }), lines };
}

function demo(body: (ctx: ServiceContext<unknown>) => Promise<unknown>) {
  return defineService({ name: 'demo', schema: z.object({}).strict(), settings: () => ({}), start: (ctx) => body(ctx) });
}

describe('ctx.redis', () => {
  it('writes one set of options per kind', () => {
    expect(redisOptions('commands')).toMatchObject({ maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    expect(redisOptions('queued')).toMatchObject({ maxRetriesPerRequest: 2, enableOfflineQueue: true });
    expect(redisOptions('blocking')).toMatchObject({ maxRetriesPerRequest: null, enableOfflineQueue: true });
    expect(redisOptions('subscriber')).toMatchObject({ maxRetriesPerRequest: null, autoResubscribe: true });
    // ioredis's auto-pipeline kept requests alive through young-generation GCs (docs/performance.md).
    expect(redisOptions('commands')).not.toHaveProperty('enableAutoPipelining');
    expect(redisTarget('redis://user:secret@10.0.0.5:6380/2')).toBe('10.0.0.5:6380');
  });

  it('hands back a connected client; an outage of a server with two clients is one warn line lost and one back, with its duration', async () => {
    const srv = await redisServer();
    const { log, lines } = capture();
    const clients: any[] = [];
    const s = await startService(
      demo(async (ctx) => {
        clients.push(await ctx.redis('first', srv.url));
        clients.push(await ctx.redis('second', srv.url, { kind: 'subscriber' }));
      }),
      { config: {}, log },
    );
    try {
      expect(clients.map((c) => c.status)).toEqual(['ready', 'ready']);
      expect(await clients[0].ping()).toBe('PONG');
      await srv.stop();
      await until(() => lines.some((l) => l.msg === 'dependency lost'), 'the lost line');
      // Both clients keep failing to reconnect: still one line.
      await until(() => lines.filter((l) => l.msg === 'redis connection error').length >= 4, 'several connection errors');
      await srv.start();
      await until(() => lines.some((l) => l.msg === 'dependency back'), 'the back line');
      await until(() => clients.every((c) => c.status === 'ready'), 'both clients reconnected');
      const lost = lines.filter((l) => l.msg === 'dependency lost');
      const back = lines.filter((l) => l.msg === 'dependency back');
      expect(lost).toEqual([expect.objectContaining({ level: 'warn', dependency: `redis 127.0.0.1:${srv.port}` })]);
      expect(back).toEqual([expect.objectContaining({ level: 'warn', dependency: `redis 127.0.0.1:${srv.port}`, down_ms: expect.any(Number) })]);
      expect(lines.filter((l) => l.msg === 'redis connection error').every((l) => l.level === 'debug')).toBe(true);
      const metrics = await s.registry.metrics();
      expect(metrics).toContain(`llmgw_dependency_up{dependency="redis 127.0.0.1:${srv.port}",service="demo"} 1`);
    } finally {
      await s.close();
      await srv.stop();
    }
    // Closed in the shutdown: no more reconnects, no more lines.
    expect(clients.map((c) => c.status)).toEqual(['end', 'end']);
  }, 60_000);

  it('starts when Redis is down (bounded wait, one lost line); closes each client after the steps registered after it', async () => {
    const srv = await redisServer();
    await srv.stop();
    const { log, lines } = capture();
    const order: string[] = [];
    let client: any;
    const s = await startService(
      demo(async (ctx) => {
        client = await ctx.redis('demo', srv.url, { readyWaitMs: 300 });
        ctx.onClose('user of redis', () => void order.push(`user sees ${client.status}`));
      }),
      { config: {}, log },
    );
    expect(lines.filter((l) => l.msg === 'dependency lost')).toHaveLength(1);
    await s.close();
    expect(order).toEqual([expect.stringMatching(/^user sees (connecting|reconnecting|connect)$/)]);
    expect(client.status === 'end' || client.reconnectTimeout === null).toBe(true);
    expect(lines.filter((l) => l.msg === 'dependency back')).toHaveLength(0);
  }, 30_000);
});

describe('ctx.leader', () => {
  it('elects through the given lock; one election wins, the other stands by; shutdown releases the lock', async () => {
    const lock = new MemoryLeaderLock();
    const { log } = capture();
    const elected: string[] = [];
    const mk = () =>
      startService(
        demo(async (ctx) => {
          const e = await ctx.leader('demo', { lock, ttlMs: 3000, onElected: () => elected.push(ctx.instanceId) });
          await e.start();
          return e;
        }),
        { config: {}, log },
      );
    const a = await mk();
    const b = await mk();
    expect([(a.service as any).isLeader, (b.service as any).isLeader]).toEqual([true, false]);
    await a.close();
    expect(await lock.holder('demo')).toBeUndefined();
    await b.close();
    expect(elected).toEqual([a.instanceId]);
  });

  it('puts the lock in Redis when given a URL', async () => {
    const srv = await redisServer();
    const { log } = capture();
    try {
      const s = await startService(
        demo(async (ctx) => {
          const e = await ctx.leader('demo', { redisUrl: srv.url, keyPrefix: 'test:', ttlMs: 3000 });
          await e.start();
          return e;
        }),
        { config: {}, log },
      );
      expect((s.service as any).isLeader).toBe(true);
      await s.close();
    } finally {
      await srv.stop();
    }
  }, 30_000);
});
