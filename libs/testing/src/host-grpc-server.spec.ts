import * as grpc from '@grpc/grpc-js';
import { isIP } from 'node:net';
import { PassThrough } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, insecureFlag, listenAddress, logLevel, serverTlsSchema } from '@llmgw/config';
import { HEALTH_SERVICE, type AuthorizationTable } from '@llmgw/grpc';
import { rawCall, testPki } from './pki';
import { defineService, runService, serviceNameOf, startService } from '@llmgw/service';

const schema = z
  .object({ listen: listenAddress().default('127.0.0.1:0'), log_level: logLevel(), tls: serverTlsSchema.optional(), insecure: insecureFlag() })
  .strict();

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
  return { stream, lines };
}

const OPEN: AuthorizationTable = {};

/** A service with one gRPC server and nothing on it but health. */
const demo = defineService({
  name: 'demo',
  schema,
  settings: (c) => c,
  async start(ctx) {
    const g = await ctx.grpcServer('grpc', { address: ctx.config.listen, tls: ctx.config.tls, insecure: ctx.config.insecure, authorize: OPEN, services: [] });
    return { address: g.address };
  },
});

// Node warns DEP0123 whenever a TLS connection is given an IP as its server
// name (SNI); grpc-js alone sends the dialled host. What reaches tls.connect is checked.
describe('TLS to an IP address', () => {
  it('sets no IP as the TLS server name (no DEP0123) and still verifies the IP against the certificate', async () => {
    // The CommonJS module object grpc-js calls `connect` on.
    const tlsModule = jest.requireActual<typeof import('node:tls')>('tls');
    const connect = jest.spyOn(tlsModule, 'connect');
    const serverNames = () => connect.mock.calls.map((c) => (c[0] as { servername?: string }).servername);
    const pki = await testPki();
    const s = await startService(demo, { config: { log_level: 'silent', tls: pki.serverTls() } });
    try {
      expect(s.service.address).toMatch(/^127\.0\.0\.1:\d+$/);
      expect((await rawCall(s.service.address, pki.clientTls('router'), HEALTH_SERVICE, 'Check', { service: '' })).code).toBe('OK');
      // server_name given as an IP: checked against the IP SANs, not sent as SNI either.
      expect((await rawCall(s.service.address, { ...pki.clientTls('router'), serverName: '127.0.0.1' }, HEALTH_SERVICE, 'Check', { service: '' })).code).toBe(
        'OK',
      );
      // A name or an IP the certificate does not carry is refused.
      expect(
        (await rawCall(s.service.address, { ...pki.clientTls('router'), serverName: 'other.example' }, HEALTH_SERVICE, 'Check', { service: '' })).code,
      ).toBe('UNAVAILABLE');
      expect((await rawCall(s.service.address, { ...pki.clientTls('router'), serverName: '10.9.9.9' }, HEALTH_SERVICE, 'Check', { service: '' })).code).toBe(
        'UNAVAILABLE',
      );
      expect(serverNames().length).toBeGreaterThanOrEqual(4);
      expect(serverNames().filter((n) => n && isIP(n))).toEqual([]);

      // grpc-js on its own (what every client did before) is what this would catch.
      const tls = pki.clientTls('router');
      const c = new (grpc.makeGenericClientConstructor(HEALTH_SERVICE, 'h'))(
        s.service.address,
        grpc.credentials.createSsl(tls.ca as Buffer, tls.key as Buffer, tls.cert as Buffer),
      );
      await new Promise<void>((r) => (c as any).Check({ service: '' }, () => r()));
      c.close();
      expect(serverNames().filter((n) => n && isIP(n))).toEqual(['127.0.0.1']);
    } finally {
      connect.mockRestore();
      await s.close();
    }
  });
});

describe('ctx.grpcServer', () => {
  it.each(['0.0.0.0:0', '[::]:0', '10.1.2.3:7070', 'inventory.internal:7074'])('refuses plaintext on %s unless insecure: true', async (listen) => {
    const err = await startService(demo, { config: { listen, log_level: 'silent' } }).catch((e) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain(`refusing plaintext gRPC on ${listen}: tls is not set`);
    expect(err.message).toContain('or set insecure: true');
  });

  it('exits 2 with the reason on stderr when started as a command', async () => {
    let err = '';
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((c) => ((err += String(c)), true));
    try {
      await expect(runService(demo, { config: { listen: '0.0.0.0:0', log_level: 'silent' } })).resolves.toBe(2);
    } finally {
      write.mockRestore();
    }
    expect(err).toMatch(/^llmgw demo: invalid configuration in demo grpc listener:\n {2}- refusing plaintext gRPC on 0\.0\.0\.0:0/);
  });

  it('runs plaintext on a non-loopback address with insecure: true, and warns', async () => {
    const { stream, lines } = capture();
    const s = await startService(demo, { config: { listen: '0.0.0.0:0', insecure: true }, logDestination: stream });
    try {
      await new Promise((r) => setImmediate(r));
      expect(lines.find((l) => l.level === 'warn' || l.level === 40)).toMatchObject({
        listener: 'grpc',
        msg: expect.stringContaining('insecure: true — plaintext gRPC on 0.0.0.0:0'),
      });
      expect(await rawCall(s.service.address, undefined, HEALTH_SERVICE, 'Check', { service: '' })).toMatchObject({
        code: 'OK',
        response: { status: 'SERVING' },
      });
    } finally {
      await s.close();
    }
  });

  it('keeps plaintext on loopback (tests, `llmgw up --static`) without a warning', async () => {
    const { stream, lines } = capture();
    const s = await startService(demo, { config: {}, logDestination: stream });
    await s.close();
    expect(lines.filter((l) => l.level === 'warn' || l.level === 40)).toEqual([]);
  });

  it('refuses TLS without client certificates on a non-loopback address', async () => {
    const pki = await testPki();
    const err = await startService(demo, { config: { listen: '0.0.0.0:0', log_level: 'silent', tls: { cert: pki.server.cert, key: pki.server.key } } }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('tls.client_ca is not set, so any client may call');
  });

  it('names the key and the file when a TLS file is missing or not PEM', async () => {
    const pki = await testPki();
    const dir = mkdtempSync(join(tmpdir(), 'llmgw-host-tls-'));
    try {
      const notPem = join(dir, 'x.crt');
      writeFileSync(notPem, 'hello');
      const e1 = await startService(demo, { config: { log_level: 'silent', tls: { ...pki.serverTls(), cert: join(dir, 'missing.crt') } } }).catch((e) => e);
      expect(e1).toBeInstanceOf(ConfigError);
      expect(e1.message).toContain(`tls.cert`);
      expect(e1.message).toContain(`cannot read ${join(dir, 'missing.crt')}: ENOENT`);
      const e2 = await startService(demo, { config: { log_level: 'silent', tls: { ...pki.serverTls(), key: notPem } } }).catch((e) => e);
      expect(e2.message).toContain(`${notPem} is not a PEM file`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('opens health to any certificate of the CA, even with an empty table', async () => {
    const pki = await testPki();
    const s = await startService(demo, { config: { log_level: 'silent', tls: pki.serverTls() } });
    try {
      expect((await rawCall(s.service.address, pki.clientTls('node'), HEALTH_SERVICE, 'Check', { service: '' })).code).toBe('OK');
    } finally {
      await s.close();
    }
  });

  it('names a service definition by its package and service', () => {
    expect(serviceNameOf(HEALTH_SERVICE)).toBe('grpc.health.v1.Health');
  });
});
