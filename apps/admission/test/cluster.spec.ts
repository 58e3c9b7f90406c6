import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { request } from 'undici';
import { freePort, spawnRole, type SpawnedRole, waitUntil } from '@llmgw/testing';

/**
 * The admission service as deployed: real processes (sim-engine, admission
 * instances, routers) talking gRPC and HTTP. Two routers share one queue; the
 * standby takes over when the leader is killed; a router falls back to
 * in-process admission while the service is down and returns to it after.
 */
const dir = mkdtempSync(join(tmpdir(), 'llmgw-adm-'));
const prefix = `test:${randomUUID()}:`;
const procs: SpawnedRole[] = [];
let engine: SpawnedRole;
let n = 0;

function file(obj: unknown): string {
  const f = join(dir, `cfg-${++n}.yaml`);
  writeFileSync(f, JSON.stringify(obj));
  return f;
}

const endpoints = () => [{ name: 'e0', url: engine.url, model: 'm', pool: 'p' }];

async function admission(extra: Record<string, unknown> = {}, args: string[] = []): Promise<SpawnedRole> {
  const p = await spawnRole('admission', [
    '--config',
    file({ listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', scrape_interval: '200ms', endpoints: endpoints(), ...extra }),
    ...args,
  ]);
  procs.push(p);
  return p;
}

const grpcOf = (p: SpawnedRole) => new URL(p.urls.grpc).host;

async function router(addresses: string[], eps = endpoints()): Promise<SpawnedRole> {
  const p = await spawnRole('router', [
    '--config',
    file({
      listen: '127.0.0.1:0',
      admin_listen: '127.0.0.1:0',
      scrape_interval: '200ms',
      retries: 0,
      endpoints: eps,
      // No credits: these tests follow each request's Acquire to the service (credits have their own specs).
      admission: {
        mode: 'remote',
        address: addresses.join(','),
        queue_ttl: '20s',
        probe_interval: '200ms',
        keepalive_interval: '300ms',
        call_timeout: '500ms',
        credit_interval: '0s',
      },
    }),
  ]);
  procs.push(p);
  return p;
}

async function chat(r: SpawnedRole, band: string, maxTokens = 2, tenant = 't') {
  const res = await request(`${r.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-llmgw-band': band, 'x-llmgw-tenant': tenant },
    body: JSON.stringify({ model: 'm', max_tokens: maxTokens, messages: [{ role: 'user', content: 'hello there' }] }),
  });
  const body = (await res.body.json()) as any;
  return { status: res.statusCode, headers: res.headers, body };
}

async function metric(base: string, re: RegExp): Promise<number | undefined> {
  const text = await (await request(`${base}/metrics`)).body.text();
  const m = re.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** The sum of every sample of a metric family's series matching `re` (a `(\d+)` group per value). */
async function metricSum(base: string, re: RegExp): Promise<number> {
  const text = await (await request(`${base}/metrics`)).body.text();
  return [...text.matchAll(new RegExp(re.source, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
}

async function readyz(p: SpawnedRole): Promise<number> {
  const res = await request(`${p.urls.admin}/readyz`);
  await res.body.dump();
  return res.statusCode;
}

beforeAll(async () => {
  engine = await spawnRole('sim-engine', [
    '--port',
    '0',
    '--model',
    'm',
    '--max-num-seqs',
    '2',
    '--decode-tps',
    '20',
    '--prefill-tps',
    '0',
    '--batch-contention',
    '0',
  ]);
  procs.push(engine);
});

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  const redis = new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  rmSync(dir, { recursive: true, force: true });
});

describe('admission service with real routers', () => {
  it('two routers share one queue: a bronze flood through one fills the queue the other is turned away by', async () => {
    // Its own slow engine: 2 slots, each bronze request ~20 s (as long as a queued one may wait: queue_ttl), so
    // nothing completes or expires during the test, however long a loaded machine takes to settle and fill the queue.
    const slow = await spawnRole('sim-engine', [
      '--port',
      '0',
      '--model',
      'm',
      '--max-num-seqs',
      '2',
      '--decode-tps',
      '5',
      '--prefill-tps',
      '0',
      '--batch-contention',
      '0',
    ]);
    procs.push(slow);
    const eps = [{ name: 'slow', url: slow.url, model: 'm', pool: 'p' }];
    const adm = await admission({
      endpoints: eps,
      bands: [
        { name: 'platinum', priority: 400, saturation_ceiling: 1.0 },
        { name: 'gold', priority: 300, saturation_ceiling: 0.85 },
        { name: 'silver', priority: 200, saturation_ceiling: 0.6 },
        { name: 'bronze', priority: 100, saturation_ceiling: 0.3, queue_capacity: 3 },
      ],
    });
    const [a, b] = await Promise.all([router([grpcOf(adm)], eps), router([grpcOf(adm)], eps)]);
    const depth = () => metric(adm.urls.admin, /llmgw_admission_queue_depth\{[^}]*band="bronze",model="m"[^}]*\} (\d+)/);
    const outstanding = () => metric(adm.urls.admin, /^llmgw_admission_outstanding_leases(?:\{[^}]*\})? (\d+)/m);
    // Router A's flood. Admission probes the engine's batch size, sees a lasting queue at 2 running,
    // and from then on holds bronze; nothing finishes for ~20 s, so the lease count stays put.
    // Settled: admission has learned the 2 slots and has decided all 6 (granted, refused or queued).
    const flood = Array.from({ length: 6 }, (_x, i) => chat(a, 'bronze', 100, `a${i % 2}`).catch(() => undefined));
    const decided = async () =>
      (await metricSum(adm.urls.admin, /^llmgw_admission_wait_seconds_count\{[^}]*band="bronze"[^}]*\} (\d+)/)) +
      (await metricSum(adm.urls.admin, /^llmgw_admission_rejected_total\{[^}]*band="bronze"[^}]*\} (\d+)/)) +
      ((await depth()) ?? 0);
    const learned = () => metric(adm.urls.admin, /^llmgw_admission_learned_slots\{[^}]*\} (\d+)/m);
    await waitUntil(async () => (await learned()) === 2 && (await decided()) === 6, 'bronze to settle: 2 slots learned, all 6 decided', {
      timeoutMs: 15_000,
      everyMs: 100,
      ignoreErrors: true,
    });
    const held = (await outstanding()) ?? 0;
    expect(held).toBeGreaterThan(0);
    // A second wave fills the 3 queue places.
    flood.push(...Array.from({ length: 6 }, (_x, i) => chat(a, 'bronze', 100, `a${i % 2}`).catch(() => undefined)));
    await waitUntil(() => depth().then((v) => v === 3), 'bronze queue to fill', { timeoutMs: 10_000, everyMs: 100, ignoreErrors: true });
    const viaB = await chat(b, 'bronze', 2, 'b');
    expect(viaB.status).toBe(503);
    expect(viaB.body.error.code).toBe('queue_full');
    expect(Number(viaB.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await depth()).toBe(3);
    expect(await outstanding()).toBe(held);
    await Promise.all([a.stop(), b.stop(), adm.stop(), slow.stop()]);
    await Promise.all(flood);
  });

  it('fails over to the standby when the leader is killed; the router keeps serving and ends up on the new leader', async () => {
    // lock_ttl 3 s (renewed every 1 s): a stall of the leader on a loaded machine does not hand the lock over early.
    const leader = { redis_url: 'redis://127.0.0.1:6379', key_prefix: prefix, lock_ttl: '3s' };
    const first = await admission({ leader, instance_id: 'adm-1' });
    expect(await readyz(first)).toBe(200);
    const second = await admission({ leader, instance_id: 'adm-2' });
    expect(await readyz(second)).toBe(503);
    const r = await router([grpcOf(first), grpcOf(second)]);
    expect((await chat(r, 'gold')).status).toBe(200);
    await first.stop('SIGKILL');
    // requests keep being served during the gap (fallback) ...
    expect((await chat(r, 'gold')).status).toBe(200);
    // ... the standby takes over once the lock lapses ...
    await waitUntil(async () => (await readyz(second)) === 200, 'standby to take over', { timeoutMs: 15_000, everyMs: 100, ignoreErrors: true });
    // ... and the router goes back to the service, now the new leader.
    await waitUntil(() => metric(r.urls.admin, /^llmgw_admission_degraded(?:\{[^}]*\})? (\d+)/m).then((v) => v === 0), 'router to leave degraded mode', {
      timeoutMs: 15_000,
      everyMs: 100,
      ignoreErrors: true,
    });
    const before = (await metric(second.urls.admin, /llmgw_admission_wait_seconds_count\{[^}]*band="gold",model="m"[^}]*\} (\d+)/)) ?? 0;
    expect((await chat(r, 'gold')).status).toBe(200);
    const after = await metric(second.urls.admin, /llmgw_admission_wait_seconds_count\{[^}]*band="gold",model="m"[^}]*\} (\d+)/);
    expect(after).toBe(before + 1);
    await Promise.all([r.stop(), second.stop()]);
  });

  it('falls back to in-process admission while the service is down, then returns when it is back', async () => {
    // A port below the ephemeral range: between the kill and the restart no outgoing connection can take it.
    const port = String(await freePort());
    const adm = await admission({}, ['--port', port]);
    const r = await router([grpcOf(adm)]);
    expect((await chat(r, 'silver')).status).toBe(200);
    expect(await metric(r.urls.admin, /^llmgw_admission_degraded(?:\{[^}]*\})? (\d+)/m)).toBe(0);
    await adm.stop('SIGKILL');
    expect((await chat(r, 'silver')).status).toBe(200);
    expect(await metric(r.urls.admin, /^llmgw_admission_degraded(?:\{[^}]*\})? (\d+)/m)).toBe(1);
    const again = await admission({}, ['--port', port]);
    await waitUntil(() => metric(r.urls.admin, /^llmgw_admission_degraded(?:\{[^}]*\})? (\d+)/m).then((v) => v === 0), 'router to return to the service', {
      timeoutMs: 8_000,
      everyMs: 100,
      ignoreErrors: true,
    });
    expect((await chat(r, 'silver')).status).toBe(200);
    expect(await metric(again.urls.admin, /llmgw_admission_wait_seconds_count\{[^}]*band="silver",model="m"[^}]*\} (\d+)/)).toBe(1);
    await Promise.all([r.stop(), again.stop()]);
  });
});
