import * as grpc from '@grpc/grpc-js';
import { checkHealth, clientChannelOptions, clientCredentials, initCa, issueCert, ROLES, type ClientTlsOptions, type Role } from '@llmgw/grpc';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** Node ids the test PKI has node certificates for (CN = node id, OU = node). */
export const TEST_NODES = ['test-node-1', 'test-node-2'] as const;

/** Paths of one issued certificate and key. */
export interface TestCert {
  cert: string;
  key: string;
}

/**
 * A private CA for tests, with a server certificate for every loopback
 * address, a client certificate per role (CN test-<role>, OU <role>), node
 * certificates, one without a role, and a second CA with its own router
 * certificate (the "other CA" case).
 */
export interface TestPki {
  dir: string;
  /** The CA certificate path. */
  ca: string;
  /** Server certificate for 127.0.0.1, ::1 and localhost. */
  server: TestCert;
  role(role: Role): TestCert;
  node(id: (typeof TEST_NODES)[number]): TestCert;
  /** A client certificate of this CA without a subject OU. */
  noRole: TestCert;
  /** Another CA, and a router certificate it signed. */
  other: { ca: string; router: TestCert };
  /** A server `tls` block (mTLS). */
  serverTls(): { cert: string; key: string; client_ca: string };
  /** A client `tls` block (paths) for `role`; no certificate when role is undefined. */
  clientTlsFiles(role?: Role): { ca: string; cert?: string; key?: string };
  /** The same as PEMs, as gRPC clients take them. */
  clientTls(role?: Role): ClientTlsOptions;
  /** PEMs of a certificate from another CA (trusting this server's CA). */
  otherCaTls(): ClientTlsOptions;
  noRoleTls(): ClientTlsOptions;
}

// Bump when what is issued changes, so a cached directory of the old shape is not used.
const VERSION = 'v1';

async function build(dir: string): Promise<void> {
  const ca = await initCa({ dir, commonName: 'llmgw-test-ca', days: 30 });
  const otherDir = join(dir, 'other');
  const other = await initCa({ dir: otherDir, commonName: 'llmgw-other-ca', days: 30 });
  await Promise.all([
    issueCert({ ca, dir, name: 'server', commonName: 'test-server', sans: ['127.0.0.1', '::1', 'localhost'], usage: 'server', role: 'inventory', days: 30 }),
    ...ROLES.map((r) => issueCert({ ca, dir, name: `role-${r}`, commonName: `test-${r}`, usage: 'client', role: r, days: 30 })),
    ...TEST_NODES.map((n) => issueCert({ ca, dir, name: `node-${n}`, commonName: n, usage: 'client', role: 'node', days: 30 })),
    issueCert({ ca, dir, name: 'no-role', commonName: 'test-no-role', usage: 'client', days: 30 }),
    issueCert({ ca: other, dir: otherDir, name: 'router', commonName: 'test-router', usage: 'client', role: 'router', days: 30 }),
  ]);
}

function stillValid(dir: string): boolean {
  try {
    const x = new X509Certificate(readFileSync(join(dir, 'ca.crt')));
    return existsSync(join(dir, 'other', 'router.crt')) && new Date(x.validTo).getTime() > Date.now() + 86_400_000;
  } catch {
    return false;
  }
}

let cached: Promise<TestPki> | undefined;

/**
 * The test PKI, issued once and kept in the temp directory for later runs
 * (until a day before it expires); concurrent test workers race to create
 * it and all use the one that landed first.
 */
export function testPki(): Promise<TestPki> {
  return (cached ??= (async () => {
    let user = 'user';
    try {
      user = userInfo().username;
    } catch {
      // no passwd entry
    }
    const dir = join(tmpdir(), `llmgw-test-pki-${VERSION}-${user}`);
    if (!stillValid(dir)) {
      const tmp = `${dir}.${process.pid}.${Date.now()}`;
      mkdirSync(tmp, { recursive: true, mode: 0o700 });
      await build(tmp);
      // A stale one goes; one another worker just landed stays.
      if (existsSync(dir) && !stillValid(dir)) rmSync(dir, { recursive: true, force: true });
      try {
        renameSync(tmp, dir);
      } catch {
        // Another worker's landed first: use it.
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    return pkiAt(dir);
  })());
}

function pkiAt(dir: string): TestPki {
  const pair = (name: string, d = dir): TestCert => ({ cert: join(d, `${name}.crt`), key: join(d, `${name}.key`) });
  const pem = (c: TestCert) => ({ cert: readFileSync(c.cert), key: readFileSync(c.key) });
  const ca = join(dir, 'ca.crt');
  const p: TestPki = {
    dir,
    ca,
    server: pair('server'),
    role: (r) => pair(`role-${r}`),
    node: (n) => pair(`node-${n}`),
    noRole: pair('no-role'),
    other: { ca: join(dir, 'other', 'ca.crt'), router: pair('router', join(dir, 'other')) },
    serverTls: () => ({ cert: join(dir, 'server.crt'), key: join(dir, 'server.key'), client_ca: ca }),
    clientTlsFiles: (r) => ({ ca, ...(r ? pair(`role-${r}`) : {}) }),
    clientTls: (r) => ({ ca: readFileSync(ca), ...(r ? pem(pair(`role-${r}`)) : {}) }),
    otherCaTls: () => ({ ca: readFileSync(ca), ...pem(p.other.router) }),
    noRoleTls: () => ({ ca: readFileSync(ca), ...pem(p.noRole) }),
  };
  return p;
}

/** A grpc.health.v1 Check over `tls` (resolves the status, rejects with the gRPC error). */
export function healthOver(address: string, tls: ClientTlsOptions | undefined, service = ''): Promise<string> {
  return checkHealth(address, clientCredentials({ tls }), service, {
    deadlineMs: 5_000,
    channelOptions: { ...clientChannelOptions({ tls, address }), 'grpc.max_reconnect_backoff_ms': 200 },
  });
}

/** The gRPC status code name of a rejection (e.g. "PERMISSION_DENIED"), and its message. */
export function grpcStatusOf(e: unknown): { code: string; message: string } {
  const err = e as { code?: number; grpcCode?: number; details?: string; message?: string };
  const code = err.grpcCode ?? err.code;
  return { code: typeof code === 'number' ? grpc.status[code] : String(code), message: err.details ?? err.message ?? String(e) };
}

/** How one raw call ended: "OK" with the first response, or the status name and message. */
export interface RawCallResult {
  code: string;
  message: string;
  response?: unknown;
}

/**
 * One call of `method` on `definition` at `address` over `tls` (plaintext
 * when undefined): unary, or a stream that writes `request` and ends at its
 * first response (OK) or its status. For the per-port TLS tests.
 */
export function rawCall(
  address: string,
  tls: ClientTlsOptions | undefined,
  definition: grpc.ServiceDefinition,
  method: string,
  request: unknown,
  deadlineMs = 5_000,
): Promise<RawCallResult> {
  const Ctor = grpc.makeGenericClientConstructor(definition as grpc.ServiceDefinition<grpc.UntypedServiceImplementation>, 'raw');
  const client = new Ctor(address, clientCredentials({ tls }), { ...clientChannelOptions({ tls, address }), 'grpc.max_reconnect_backoff_ms': 200 });
  const m = definition[method];
  if (!m) throw new Error(`rawCall: no method ${method}`);
  const deadline = new Date(Date.now() + deadlineMs);
  const fail = (e: grpc.ServiceError): RawCallResult => ({ code: grpc.status[e.code] ?? String(e.code), message: e.details || e.message });
  const fn = (client as unknown as Record<string, (...a: unknown[]) => any>)[method].bind(client);
  return new Promise<RawCallResult>((resolve) => {
    const done = (r: RawCallResult) => {
      client.close();
      resolve(r);
    };
    if (!m.requestStream && !m.responseStream) {
      fn(request, { deadline }, (err: grpc.ServiceError | null, res: unknown) => done(err ? fail(err) : { code: 'OK', message: '', response: res }));
      return;
    }
    const call = m.requestStream ? fn({ deadline }) : fn(request, { deadline });
    let settled = false;
    const settle = (r: RawCallResult) => {
      if (settled) return;
      settled = true;
      call.cancel?.();
      done(r);
    };
    call.on('data', (res: unknown) => settle({ code: 'OK', message: '', response: res }));
    call.on('error', (e: grpc.ServiceError) => settle(fail(e)));
    call.on('status', (s: grpc.StatusObject) => settle({ code: grpc.status[s.code], message: s.details }));
    if (m.requestStream) call.write(request);
  });
}

/**
 * What each kind of wrong caller sees on an mTLS port: no certificate,
 * another CA's certificate, a certificate without a role, and one of
 * `wrongRole`. The port's own role gets through (the caller checks how).
 */
export async function refusals(
  pki: TestPki,
  address: string,
  definition: grpc.ServiceDefinition,
  method: string,
  request: unknown,
  wrongRole: Role,
): Promise<Record<'noCert' | 'otherCa' | 'noRole' | 'wrongRole' | 'plaintext', RawCallResult>> {
  return {
    noCert: await rawCall(address, pki.clientTls(), definition, method, request),
    otherCa: await rawCall(address, pki.otherCaTls(), definition, method, request),
    noRole: await rawCall(address, pki.noRoleTls(), definition, method, request),
    wrongRole: await rawCall(address, pki.clientTls(wrongRole), definition, method, request),
    plaintext: await rawCall(address, undefined, definition, method, request),
  };
}
