import { AdmissionController, DEFAULT_ADMISSION_CONFIG, type AcquireResult } from '@llmgw/admission-core';
import { AdmissionRpcService, admissionServiceDefinition } from '@llmgw/admission-rpc';
import { parseConfig, routerConfigSchema, type RouterConfigInput } from '@llmgw/config';
import { StaticEndpointSource, type Scraper } from '@llmgw/endpoints';
import { createServer, initCa, issueCert, listen, readCertFiles, shutdown } from '@llmgw/grpc';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@llmgw/observability';
import { Registry } from 'prom-client';
import { PassThrough } from 'node:stream';
import { waitUntil } from '@llmgw/testing';
import { createAdmission } from './index';

const log = createLogger({ service: 'router', destination: new PassThrough(), level: 'silent' });
const req = (band: string) => ({ requestId: 'r', band, tenant: 't', model: 'm', candidatePools: ['p'], estimatedTokens: 10 });
const endpoints = [{ name: 'e0', url: 'http://127.0.0.1:9', model: 'm', pool: 'p' }];
const cfg = (admission: RouterConfigInput['admission']) => parseConfig(routerConfigSchema, { endpoints, admission, scrape_interval: '100ms' });
/** A scraper stand-in: one idle replica (the fallback's view in the remote tests). */
const scraper = {
  state: () => ({ id: 'e0', stale: false, consecutiveFailures: 0, batchCapacity: 4, stats: { waiting: 0, running: 0 } }),
} as unknown as Scraper;

/** Lets promise callbacks queued by a grant or a release run (one macrotask turn). */
const settled = () => new Promise<void>((r) => setImmediate(r));

const degraded = async (r: Registry) => /^llmgw_admission_degraded(?:\{[^}]*\})? (\d+)/m.exec(await r.metrics())?.[1];

describe('router createAdmission', () => {
  const closers: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    while (closers.length) await closers.pop()!();
  });

  it('off: grants at once with the first candidate pool', async () => {
    const a = createAdmission(cfg({ mode: 'off' }), { log, registry: new Registry() });
    expect(a.mode).toBe('off');
    expect(await a.acquire({ ...req('bronze'), candidatePools: ['x', 'y'] })).toMatchObject({ kind: 'granted', pool: 'x', queuedMs: 0 });
  });

  it('local: queues by band using the router scraper state and releases wake the queue', async () => {
    const registry = new Registry();
    const source = new StaticEndpointSource(endpoints);
    // a lasting queue at 4 running confirms capacity 4; then the engine is reported idle
    const stats = { waiting: 1, running: 4 };
    // Each feed (every scrape_interval / 2) reads the scraper once: the spec counts feeds, not time.
    let feeds = 0;
    const live = { state: () => (feeds++, { id: 'e0', stale: false, consecutiveFailures: 0, batchCapacity: 4, stats }) } as unknown as Scraper;
    const a = createAdmission(cfg({ mode: 'local' }), { log, registry, source, scraper: live });
    closers.push(() => a.close?.());
    // Three samples in a row confirm the capacity; a few more leave no doubt.
    await waitUntil(() => feeds >= 6, 'six feeds of the busy engine');
    stats.waiting = 0;
    stats.running = 0;
    const idleFrom = feeds;
    await waitUntil(() => feeds >= idleFrom + 3, 'three feeds of the idle engine');
    // bronze alone borrows every slot but the headroom: 4 − 1 = 3
    const leases: AcquireResult[] = [];
    for (let i = 0; i < 3; i++) leases.push(await a.acquire(req('bronze')));
    expect(leases.every((l) => l.kind === 'granted')).toBe(true);
    let fourth: AcquireResult | undefined;
    void a.acquire(req('bronze')).then((r) => (fourth = r));
    // Held: a grant would settle within a turn of the event loop.
    await settled();
    expect(fourth).toBeUndefined();
    // platinum takes the free slot at once
    const plat = await a.acquire(req('platinum'));
    expect(plat.kind).toBe('granted');
    if (leases[0].kind === 'granted') leases[0].lease.release({ status: 200 });
    await settled();
    // while platinum runs, bronze keeps to its share (0.3 × 4): still held
    expect(fourth).toBeUndefined();
    if (plat.kind === 'granted') plat.lease.release({ status: 200 });
    await waitUntil(() => fourth !== undefined, 'the held bronze request to be granted');
    expect(fourth).toMatchObject({ kind: 'granted' });
    expect(await registry.metrics()).toMatch(/llmgw_admission_wait_seconds_count\{[^}]*band="bronze"/);
  });

  it('remote: uses the service, and the in-process fallback with llmgw_admission_degraded 1 when it is unreachable', async () => {
    const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG);
    ctl.updatePool('p', [{ id: 'e0', waiting: 0, running: 0 }], 'm');
    const svc = new AdmissionRpcService({ controller: () => ctl, instanceId: 'i', fencingToken: () => 1, routerTtlMs: 60_000 });
    const server = createServer();
    server.addService(admissionServiceDefinition(), svc.implementation());
    const port = await listen(server, '127.0.0.1', 0);
    closers.push(() => shutdown(server, 100));

    const registry = new Registry();
    // A generous call_timeout: a KeepAlive and a Status past it (a stalled event loop) would degrade this router.
    const a = createAdmission(cfg({ mode: 'remote', address: `127.0.0.1:${port}`, probe_interval: '100ms', call_timeout: '5s' }), {
      log,
      registry,
      source: new StaticEndpointSource(endpoints),
      scraper,
    });
    closers.push(() => a.close?.());
    expect(await a.acquire(req('gold'))).toMatchObject({ kind: 'granted', pool: 'p' });
    expect(ctl.outstandingLeases()).toBe(1);
    expect(await degraded(registry)).toBe('0');

    const down = createAdmission(cfg({ mode: 'remote', address: '127.0.0.1:1', probe_interval: '100ms', call_timeout: '300ms' }), {
      log,
      registry: new Registry(),
      source: new StaticEndpointSource(endpoints),
      scraper,
    });
    closers.push(() => down.close?.());
    expect(await down.acquire(req('gold'))).toMatchObject({ kind: 'granted', pool: 'p' });
    expect(down.degraded).toBe(true);
  });

  it('remote over mTLS: served with the client certificate, degraded without one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmgw-adm-tls-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const ca = await initCa({ dir });
    const srv = await issueCert({ ca, dir, name: 'admission', commonName: 'admission', sans: ['127.0.0.1'], usage: 'server' });
    const cli = await issueCert({ ca, dir, name: 'router', commonName: 'router', usage: 'client' });
    const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG);
    ctl.updatePool('p', [{ id: 'e0', waiting: 0, running: 0 }], 'm');
    const svc = new AdmissionRpcService({ controller: () => ctl, instanceId: 'i', fencingToken: () => 1, routerTtlMs: 60_000 });
    const server = createServer();
    server.addService(admissionServiceDefinition(), svc.implementation());
    const port = await listen(server, '127.0.0.1', 0, { tls: { ...(await readCertFiles(srv)), ca: readFileSync(ca.certPath), requireClientCert: true } });
    closers.push(() => shutdown(server, 100));
    const mk = (tls: Record<string, string>) =>
      createAdmission(cfg({ mode: 'remote', address: `127.0.0.1:${port}`, probe_interval: '100ms', call_timeout: '5s', tls: tls as any }), {
        log,
        registry: new Registry(),
        source: new StaticEndpointSource(endpoints),
        scraper,
      });
    const good = mk({ ca: ca.certPath, cert: cli.certPath, key: cli.keyPath });
    closers.push(() => good.close?.());
    expect(await good.acquire(req('gold'))).toMatchObject({ kind: 'granted' });
    expect(good.degraded).toBe(false);
    expect(ctl.outstandingLeases()).toBe(1);
    const anonymous = mk({ ca: ca.certPath });
    closers.push(() => anonymous.close?.());
    expect(await anonymous.acquire(req('gold'))).toMatchObject({ kind: 'granted' });
    expect(anonymous.degraded).toBe(true);
    expect(ctl.outstandingLeases()).toBe(1);
  });

  it('rejects remote mode without an address at boot', () => {
    expect(() => createAdmission(cfg({ mode: 'remote' }), { log, registry: new Registry(), source: new StaticEndpointSource(endpoints), scraper })).toThrow(
      /address/,
    );
  });
});
