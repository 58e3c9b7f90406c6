import * as grpc from '@grpc/grpc-js';
import { AdmissionController, DEFAULT_ADMISSION_CONFIG, type AcquireResult, type AdmissionRequest } from '@llmgw/admission-core';
import { createServer, listen, shutdown } from '@llmgw/grpc';
import { Registry } from 'prom-client';
import { AdmissionRpcClient } from './client';
import { createAdmissionMetrics } from './metrics';
import { admissionServiceDefinition } from './proto';
import { RemoteAdmission } from './remote';
import { AdmissionRpcService } from './server';
import { ServedPools } from './served';
import { waitUntil } from '@llmgw/contracts/wait';

const until = (cond: () => boolean, timeoutMs?: number) => waitUntil(cond, 'the admission state to change', { timeoutMs });

/** A controller whose pool "p" has batch capacity 1 and is otherwise idle: bronze gets 2 leases. */
function controller(registry?: Registry) {
  const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG, registry ? { recorder: createAdmissionMetrics(registry) } : {});
  ctl.updatePool('p', [{ id: 'r', waiting: 0, running: 1 }]);
  ctl.updatePool('p', [{ id: 'r', waiting: 0, running: 0 }]);
  return ctl;
}

async function serve(opts: {
  ctl?: AdmissionController;
  routerTtlMs?: number;
  reconcileAfterMs?: number;
  port?: number;
  served?: ServedPools;
  graceMs?: number;
  now?: () => number;
}) {
  const svc = new AdmissionRpcService({
    controller: () => opts.ctl,
    instanceId: 'i',
    fencingToken: () => 1,
    routerTtlMs: opts.routerTtlMs ?? 60_000,
    reconcileAfterMs: opts.reconcileAfterMs,
    served: opts.served,
    unknownPoolGraceMs: opts.graceMs,
    now: opts.now,
  });
  const server = createServer();
  server.addService(admissionServiceDefinition(), svc.implementation());
  const port = await listen(server, '127.0.0.1', opts.port ?? 0);
  svc.start();
  return { svc, server, port, address: `127.0.0.1:${port}`, close: async () => (svc.stop(), shutdown(server, 200)) };
}

const req = (band: string, over: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  requestId: 'r',
  band,
  tenant: 't',
  model: 'm',
  candidatePools: ['p'],
  estimatedTokens: 10,
  ...over,
});

function track(p: Promise<AcquireResult>) {
  const box: { r?: AcquireResult } = {};
  void p.then((r) => (box.r = r));
  return box;
}

describe('admission over gRPC', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  function remote(addresses: string[], routerId: string, extra: Partial<ConstructorParameters<typeof RemoteAdmission>[0]> = {}) {
    const local = controller();
    const ra = new RemoteAdmission({
      // Not short: a KeepAlive past its deadline on a stalled event loop flips the router to its local fallback.
      client: new AdmissionRpcClient({ addresses, callTimeoutMs: 5_000 }),
      local,
      routerId,
      queueTtlMs: 10_000,
      keepaliveIntervalMs: 100,
      probeIntervalMs: 100,
      ...extra,
    });
    ra.start();
    cleanups.push(() => (local.close(), ra.close()));
    return ra;
  }

  it('two routers share one queue: a lease held by one holds the other back until released', async () => {
    const registry = new Registry();
    const ctl = controller(registry);
    const s = await serve({ ctl });
    cleanups.push(() => s.close());
    const a = remote([s.address], 'router-a');
    const b = remote([s.address], 'router-b');
    const g1 = await a.acquire(req('bronze'));
    const g2 = await a.acquire(req('bronze'));
    expect([g1.kind, g2.kind]).toEqual(['granted', 'granted']);
    const waiting = track(b.acquire(req('bronze')));
    await until(() => ctl.queued() === 1);
    expect(waiting.r).toBeUndefined();
    if (g1.kind === 'granted') g1.lease.release({ status: 200 });
    await until(() => waiting.r !== undefined);
    expect(waiting.r).toMatchObject({ kind: 'granted', pool: 'p' });
    expect(waiting.r!.queuedMs).toBeGreaterThan(0);
    const text = await registry.metrics();
    expect(text).toMatch(/llmgw_admission_wait_seconds_count\{band="bronze",model="m"\} 3/);
    for (const c of ['total', 'slots', 'queue', 'kv']) expect(text).toMatch(new RegExp(`llmgw_pool_saturation\\{pool="p",model="",component="${c}"\\}`));
  });

  it('passes rejections through with reason and Retry-After', async () => {
    const ctl = new AdmissionController({ ...DEFAULT_ADMISSION_CONFIG, queueCapacityPerBand: 0 });
    ctl.updatePool('p', [{ id: 'r', waiting: 99, running: 1 }]);
    const s = await serve({ ctl });
    cleanups.push(() => s.close());
    const a = remote([s.address], 'router-a');
    const r = await a.acquire(req('gold'));
    expect(r).toMatchObject({ kind: 'rejected', reason: 'full', retryAfterSeconds: 1 });
  });

  it('removes a queued request from the service queue when the router cancels it', async () => {
    const ctl = controller();
    const s = await serve({ ctl });
    cleanups.push(() => s.close());
    const a = remote([s.address], 'router-a');
    await a.acquire(req('bronze'));
    await a.acquire(req('bronze'));
    const ac = new AbortController();
    const p = a.acquire(req('bronze'), ac.signal);
    await until(() => ctl.queued() === 1);
    ac.abort();
    expect(await p).toMatchObject({ kind: 'rejected', reason: 'client_gone' });
    await until(() => ctl.queued() === 0);
  });

  it('releases the leases of a router that stops sending KeepAlive after router_ttl', async () => {
    const ctl = controller();
    // The live router's KeepAlive comes every 100 ms: a TTL no event-loop stall of a busy machine outlasts.
    const s = await serve({ ctl, routerTtlMs: 3_000 });
    cleanups.push(() => s.close());
    const client = new AdmissionRpcClient({ addresses: [s.address] });
    cleanups.push(() => client.close());
    const base = {
      requestId: 'x',
      band: 'bronze',
      tenant: 't',
      model: 'm',
      candidatePools: ['p'],
      estimatedTokens: 1,
      deadlineUnixMs: 0,
      routerId: 'dead-router',
    };
    const dead = (await client.acquire(base, 30_000)).granted!;
    expect(ctl.outstandingLeases()).toBe(1);
    // a live router keeps its lease through the same period
    const live = remote([s.address], 'live-router');
    const kept = await live.acquire(req('bronze'));
    expect(kept.kind).toBe('granted');
    await until(() => !ctl.hasLease(dead.leaseId));
    expect(ctl.outstandingLeases()).toBe(1);
  });

  it('releases a lease whose Release was lost once KeepAlive stops listing it', async () => {
    const ctl = controller();
    let clock = 1_800_000_000_000;
    const s = await serve({ ctl, reconcileAfterMs: 200, now: () => clock });
    cleanups.push(() => s.close());
    const client = new AdmissionRpcClient({ addresses: [s.address] });
    cleanups.push(() => client.close());
    const base = { requestId: 'x', band: 'bronze', tenant: 't', model: 'm', candidatePools: ['p'], estimatedTokens: 1, deadlineUnixMs: 0, routerId: 'r1' };
    const kept = (await client.acquire(base, 30_000)).granted!;
    const lost = (await client.acquire(base, 30_000)).granted!;
    expect(ctl.outstandingLeases()).toBe(2);
    // young leases are not touched even if unlisted (their answer may still be in flight)
    await client.keepAlive('r1', [{ leaseId: kept.leaseId, pool: 'p' }]);
    expect(ctl.outstandingLeases()).toBe(2);
    clock += 250;
    await client.keepAlive('r1', [{ leaseId: kept.leaseId, pool: 'p' }]);
    expect(ctl.outstandingLeases()).toBe(1);
    expect(ctl.hasLease(kept.leaseId)).toBe(true);
    expect(ctl.hasLease(lost.leaseId)).toBe(false);
  });

  it('asks the next address when one is a standby', async () => {
    const standby = await serve({});
    const leader = await serve({ ctl: controller() });
    cleanups.push(
      () => standby.close(),
      () => leader.close(),
    );
    const a = remote([standby.address, leader.address], 'router-a');
    expect((await a.acquire(req('bronze'))).kind).toBe('granted');
    expect(a.isDegraded).toBe(false);
  });

  it('falls back to in-process admission while the service is down and returns when it is back', async () => {
    const ctl = controller();
    let s = await serve({ ctl });
    const port = s.port;
    const flips: boolean[] = [];
    const a = remote([s.address], 'router-a', { onDegraded: (d) => flips.push(d) });
    expect((await a.acquire(req('platinum'))).kind).toBe('granted');
    await s.close();
    const during = await a.acquire(req('platinum'));
    expect(during.kind).toBe('granted');
    expect(a.isDegraded).toBe(true);
    expect(flips).toEqual([true]);
    // still degraded: requests keep flowing locally
    expect((await a.acquire(req('platinum'))).kind).toBe('granted');
    const ctl2 = controller();
    s = await serve({ ctl: ctl2, port });
    cleanups.push(() => s.close());
    await until(() => !a.isDegraded);
    expect(flips).toEqual([true, false]);
    const after = await a.acquire(req('platinum'));
    expect(after.kind).toBe('granted');
    // Its own grant, plus the one granted by the old service and still held: the router's
    // KeepAlive hands it over, which may land a moment after the switch back.
    await until(() => ctl2.outstandingLeases() >= 2);
    expect(ctl2.outstandingLeases()).toBeGreaterThanOrEqual(2);
  });

  it('re-queues locally when the service steps down while the request waits there', async () => {
    const ctl = controller();
    const s = await serve({ ctl });
    cleanups.push(() => s.close());
    const a = remote([s.address], 'router-a');
    await a.acquire(req('bronze'));
    await a.acquire(req('bronze'));
    const waiting = track(a.acquire(req('platinum', { candidatePools: ['p'] })));
    const queued = track(a.acquire(req('bronze')));
    await until(() => ctl.queued() === 1 && waiting.r !== undefined);
    expect(waiting.r?.kind).toBe('granted');
    ctl.close(); // what a leader does when it loses the lock
    await until(() => queued.r !== undefined);
    expect(queued.r?.kind).toBe('granted'); // by the router's in-process fallback
    expect(a.isDegraded).toBe(true);
  });

  it('answers UNAVAILABLE from a standby and Status tells who serves', async () => {
    const standby = await serve({});
    cleanups.push(() => standby.close());
    const client = new AdmissionRpcClient({ addresses: [standby.address] });
    cleanups.push(() => client.close());
    await expect(
      client.acquire(
        { requestId: 'x', band: 'gold', tenant: '', model: 'm', candidatePools: ['p'], estimatedTokens: 1, deadlineUnixMs: 0, routerId: 'r' },
        30_000,
      ),
    ).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE', grpcCode: grpc.status.UNAVAILABLE });
    expect(await client.status()).toMatchObject({ serving: false, instanceId: 'i' });
    expect(await client.findServing()).toBeUndefined();
  });
});

describe('Acquire at the edge', () => {
  const base = { requestId: 'x', band: 'bronze', tenant: 't', model: 'm', candidatePools: ['p'], estimatedTokens: 1, deadlineUnixMs: 0, routerId: 'r1' };

  it('refuses a model or pool nobody serves with NOT_FOUND after one endpoint update, instead of queueing it to its deadline', async () => {
    const ctl = controller();
    const served = new ServedPools();
    const s = await serve({ ctl, served, graceMs: 60_000 });
    const client = new AdmissionRpcClient({ addresses: [s.address], callTimeoutMs: 30_000 });
    try {
      // Before the endpoint list is read, nothing is refused.
      expect((await client.acquire(base, 30_000)).granted).toBeTruthy();
      served.update([{ model: 'm', pool: 'p' }]);
      const unknownModel = client.acquire({ ...base, model: 'nobody' }, 30_000).catch((e) => e);
      const unknownPool = client.acquire({ ...base, candidatePools: ['gone-1', 'gone-2'] }, 30_000).catch((e) => e);
      // A pair the router saw first is granted once the update lists it.
      const lagging = client.acquire({ ...base, model: 'new', candidatePools: ['p2'] }, 30_000);
      await until(() => served.waiting === 3); // all three wait for the next endpoint update
      ctl.updatePool('p2', [{ id: 'r2', waiting: 0, running: 0 }], 'new');
      served.update([
        { model: 'm', pool: 'p' },
        { model: 'new', pool: 'p2' },
      ]);
      expect(await unknownModel).toMatchObject({
        code: 'LLMGW_ERR_NOT_FOUND',
        grpcCode: grpc.status.NOT_FOUND,
        message: expect.stringContaining('no endpoint serves model "nobody" in pool "p"'),
      });
      expect(await unknownPool).toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND', message: expect.stringContaining('any of pools "gone-1", "gone-2"') });
      expect((await lagging).granted?.pool).toBe('p2');
      expect(ctl.queued()).toBe(0);
    } finally {
      client.close();
      ctl.close();
      await s.close();
    }
  });

  it('refuses within the grace time when no update comes', async () => {
    const ctl = controller();
    const served = new ServedPools();
    served.update([{ model: 'm', pool: 'p' }]);
    const s = await serve({ ctl, served, graceMs: 50 });
    const client = new AdmissionRpcClient({ addresses: [s.address], callTimeoutMs: 30_000 });
    try {
      await expect(client.acquire({ ...base, model: 'nobody' }, 30_000)).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
    } finally {
      client.close();
      ctl.close();
      await s.close();
    }
  });

  it('answers INVALID_ARGUMENT naming the field for oversized, out-of-range and wrongly typed input, with a bounded message', async () => {
    const ctl = controller();
    const s = await serve({ ctl });
    const client = new AdmissionRpcClient({ addresses: [s.address], callTimeoutMs: 5_000 });
    try {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ model: 'm'.repeat(100_000) }, 'model'],
        [{ candidatePools: Array.from({ length: 65 }, (_, i) => `p${i}`) }, 'candidate_pools'],
        [{ estimatedTokens: -1 }, 'estimated_tokens'],
        [{ deadlineUnixMs: -5 }, 'deadlineUnixMs'],
        [{ model: '' }, 'model is required'],
        [{ candidatePools: [] }, 'candidate_pools'],
      ];
      for (const [over, field] of cases) {
        const e = await client.acquire({ ...base, ...over } as typeof base, 5_000).catch((x) => x);
        expect(e).toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT', message: expect.stringContaining(field) });
        expect(e.message.length).toBeLessThan(1200);
      }
      expect(ctl.queued()).toBe(0);
    } finally {
      client.close();
      ctl.close();
      await s.close();
    }
  });
});
