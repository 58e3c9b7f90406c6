import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { accountingProto } from '@llmgw/accounting-rpc';
import { admissionServiceDefinition } from '@llmgw/admission-rpc';
import { createServer } from '@llmgw/grpc';
import { freePort, startRedisServer, type TestRedisServer, waitUntil } from '@llmgw/testing';
import { start, type RunningRouter } from '../src/main';
import { capturingLog, fakeUpstream, type FakeUpstream } from './helpers';

// A lost dependency is one warn line when lost and one when back (with the outage's length),
// not one per failed call and not only at debug (docs/operations.md, "Redis, leader locks and lost dependencies").
const lostLines = (lines: any[], dep: string) => lines.filter((l) => l.msg === 'dependency lost' && l.dependency === dep);
const backLines = (lines: any[], dep: string) => lines.filter((l) => l.msg === 'dependency back' && l.dependency === dep);

describe('router: lost dependencies are logged once each way', () => {
  let up: FakeUpstream;
  beforeAll(async () => {
    up = await fakeUpstream();
  });
  afterAll(async () => {
    await up.close();
  });

  it('the prefix share: Redis killed under a running router is a warn line, and its return another with the outage length', async () => {
    const srv: TestRedisServer = await startRedisServer();
    const { log, lines } = capturingLog('info');
    let r: RunningRouter | undefined;
    try {
      r = await start({
        log,
        config: {
          listen: '127.0.0.1:0',
          admin_listen: '127.0.0.1:0',
          endpoints: [{ name: 'a', url: up.url, model: 'm' }],
          prefix: { approx_tree: { share: { redis_url: srv.url, key_prefix: `test:${randomUUID()}:` } } },
        },
      });
      const dep = `redis 127.0.0.1:${srv.port}`;
      await waitUntil(() => (r!.core.state.prefix as any).index !== undefined, '(r!.core.state.prefix as any).index !== undefined', { everyMs: 25 });
      await srv.stop();
      await waitUntil(() => lostLines(lines, dep).length > 0, 'lostLines(lines, dep).length > 0', { everyMs: 25 });
      // Requests keep routing (each insert is dropped, counted) without a line each.
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${r.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `hello ${i} `.repeat(40) }] }),
        });
        expect(res.status).toBe(200);
      }
      await srv.start();
      await waitUntil(() => backLines(lines, dep).length > 0, 'backLines(lines, dep).length > 0', { everyMs: 25 });
      expect(lostLines(lines, dep)).toEqual([expect.objectContaining({ level: 'warn' })]);
      expect(backLines(lines, dep)).toEqual([expect.objectContaining({ level: 'warn', down_ms: expect.any(Number) })]);
    } finally {
      await r?.close();
      await srv.stop();
    }
  }, 60_000);

  it('accounting: key resolution failing for many requests is one lost line; the first answer after it is the back line', async () => {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const { log, lines } = capturingLog('info');
    const r = await start({
      log,
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        endpoints: [{ name: 'a', url: up.url, model: 'm' }],
        tenancy: { enabled: true, accounting_address: address, resolve_timeout: 2000 },
      },
    });
    const call = (key: string) =>
      fetch(`${r.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      });
    let server: grpc.Server | undefined;
    try {
      for (let i = 0; i < 4; i++) expect((await call(`sk-llmgw-unknown-${i}`)).status).toBe(503);
      expect(lostLines(lines, 'accounting')).toEqual([expect.objectContaining({ level: 'warn', address })]);
      // Accounting comes up (this one refuses every key: an answer all the same).
      server = createServer();
      server.addService(accountingProto().KeyResolver.service, {
        ResolveKey: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb({ code: grpc.status.NOT_FOUND, details: 'no such key' }),
      });
      await new Promise<void>((res, rej) => server!.bindAsync(address, grpc.ServerCredentials.createInsecure(), (e) => (e ? rej(e) : res())));
      await waitUntil(
        async () => (await call(`sk-llmgw-unknown-${randomUUID()}`)).status === 401,
        '(await call(`sk-llmgw-unknown-${randomUUID()}`)).status === 401',
        { everyMs: 25 },
      );
      expect(backLines(lines, 'accounting')).toEqual([expect.objectContaining({ level: 'warn', address, down_ms: expect.any(Number) })]);
      expect(lostLines(lines, 'accounting')).toHaveLength(1);
    } finally {
      await r.close();
      server?.forceShutdown();
    }
  }, 60_000);

  it('admission: the switch to in-process admission is the lost line, the switch back the back line', async () => {
    const port = await freePort();
    const address = `127.0.0.1:${port}`;
    const { log, lines } = capturingLog('info');
    const r = await start({
      log,
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        endpoints: [{ name: 'a', url: up.url, model: 'm' }],
        admission: { mode: 'remote', address, probe_interval: 100, keepalive_interval: 100, call_timeout: 1000 },
      },
    });
    let server: grpc.Server | undefined;
    try {
      await waitUntil(() => lostLines(lines, 'admission').length > 0, "lostLines(lines, 'admission').length > 0", { everyMs: 25 });
      // An admission leader comes up on that address (a fake that serves and grants).
      server = createServer();
      const reply = (res: object) => (_call: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, res);
      server.addService(admissionServiceDefinition(), {
        Status: reply({ serving: true, instanceId: 'fake', fencingToken: 1 }),
        KeepAlive: reply({}),
        Credit: reply({}),
        Release: reply({}),
        Acquire: reply({ granted: { leaseId: 'l-1', pool: 'default' }, queuedMs: 0 }),
      } as never);
      await new Promise<void>((res, rej) => server!.bindAsync(address, grpc.ServerCredentials.createInsecure(), (e) => (e ? rej(e) : res())));
      await waitUntil(() => backLines(lines, 'admission').length > 0, "backLines(lines, 'admission').length > 0", { everyMs: 25 });
      expect(lostLines(lines, 'admission')).toEqual([expect.objectContaining({ level: 'warn', address, fallback: 'in-process admission' })]);
      expect(backLines(lines, 'admission')).toEqual([expect.objectContaining({ level: 'warn', down_ms: expect.any(Number) })]);
    } finally {
      await r.close();
      server?.forceShutdown();
    }
  }, 60_000);
});
