import { createTestDatabase } from '@llmgw/db/testing';
import {
  eventLoopMaxMs,
  formatFindings,
  fuzzTarget,
  loadFuzzMethods,
  startFuzzFleet,
  startLagProbe,
  takeEventLoopMaxMs,
  testPki,
  waitUntil,
  type FuzzFleet,
  type LagProbe,
  type ScenarioFinding,
  type TargetFindings,
} from '@llmgw/testing';
import pg from 'pg';

/**
 * Issue 29's fuzz suite in `npm test`: every method of every gRPC service, as
 * real `llmgw <role>` processes over mTLS, called as the role it needs with a
 * seeded sample of the cases the fuzzer derives from the protos (every
 * category kept: empty, wrong wire types, 100 KB strings, 10,000-element
 * repeated fields, NUL and control characters, int64 extremes, unknown enums,
 * random bytes, truncations, garbage on streams), then a heartbeat with
 * many shards (HEARTBEAT_SHARDS). `tools/bench/grpc-fuzz.ts` runs every case and prints the
 * table (docs/grpc-fuzz.md).
 *
 * Every service is held to: its process alive, a valid call answered after
 * the fuzzing, no hang, no INTERNAL/UNKNOWN from a handler (grpc-js's own
 * "error deserializing request" is not a handler's answer), no stack trace /
 * SQL / file path in any status message, no status echoing more than 256
 * characters of input. Then, over the whole run: no table of accounting's
 * database grew by more rows than calls that answered OK (refused input
 * creates nothing), inventory knows no node a refused Register named, no
 * process's event loop stalled beyond K× the run's own reference (see
 * below), and the reconciler still runs its passes and places a model target
 * within a bounded number of its intervals. Before the fixes of issue 29 the
 * full run found 47 INTERNAL answers and 30 hangs (docs/grpc-fuzz.md).
 */
/**
 * Shards in the big heartbeat: 20,000, far over inventory's per-node cap
 * (max_shards_per_node, 1024), which refuses it before merging anything.
 */
const HEARTBEAT_SHARDS = 20_000;

const SERVICES = ['accounting', 'admission', 'inventory', 'inventory-agent', 'placement-scheduler'];

/**
 * Every table accounting writes (libs/db/src/schema.ts) and the fuzz calls
 * that may add a row to it legitimately: the base message of a create is
 * valid, so an OK create adds one row; a refused call must add none. Every
 * successful admin write is audited in its transaction (and records its
 * request id when it has one); the scheduler's operator verbs are audited
 * through AppendAudit. Usage arrives from routers through Redis, never
 * through a gRPC call here.
 */
const ACCOUNTING_WRITE = /^(TenancyAdmin\/(Create|Rename|Update|Revoke|Set)|AuditLog\/AppendAudit)/;
const SCHEDULER_AUDITED = /^ControlService\/(CordonNode|UncordonNode|DrainNode|SetModelTarget)$/;
const ROW_SOURCES: Record<string, (ok: (target: string, method: RegExp) => number) => number> = {
  organizations: (ok) => ok('accounting', /^TenancyAdmin\/CreateOrg$/),
  teams: (ok) => ok('accounting', /^TenancyAdmin\/CreateTeam$/),
  projects: (ok) => ok('accounting', /^TenancyAdmin\/CreateProject$/),
  api_keys: (ok) => ok('accounting', /^TenancyAdmin\/CreateKey$/),
  limits: (ok) => ok('accounting', /^TenancyAdmin\/SetLimit$/),
  audit_log: (ok) => ok('accounting', ACCOUNTING_WRITE) + ok('placement-scheduler', SCHEDULER_AUDITED),
  admin_requests: (ok) => ok('accounting', ACCOUNTING_WRITE),
  usage: () => 0,
  usage_rollup: () => 0,
};

async function rowCounts(url: string): Promise<Record<string, number>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const out: Record<string, number> = {};
    for (const t of Object.keys(ROW_SOURCES)) out[t] = Number((await c.query(`select count(*)::int as n from ${t}`)).rows[0].n);
    return out;
  } finally {
    await c.end();
  }
}

/**
 * Event-loop stalls: a fixed 100 ms bound on wall time fails on this shared
 * 2-core machine whatever the code does (the fuzzer itself, the other
 * servers and other engineers' tests all want the CPU), so each process's
 * largest delay over the whole fuzzing (every scrape, the big heartbeat
 * included) is held against references from the same run: its own largest
 * delay over an idle window just before, and the largest delay of a
 * bystander process (startLagProbe) over the fuzzing itself, which sees the
 * same CPU contention but none of the input. Load raises the references as
 * much as the fuzzed figure; what issue 29 found — work that grows with what
 * a peer sends (a 20,000-shard heartbeat froze inventory for seconds) —
 * raises only the fuzzed one, by orders of magnitude. The reference is
 * floored at LAG_FLOOR_MS (the loop is sampled every 10 ms), and K is
 * generous: a process that works competes for the CPU worse than an idle
 * bystander, and the fuzzing is heavy on purpose (a TLS handshake per case,
 * so bursts of them land in one loop turn; 100 KB strings, 10,000-element
 * repeated fields, a 2 MB heartbeat to decode). Measured under load: fuzzed
 * 110–380 ms against a bystander's 44–64 ms (admission's KeepAlive, 380 ms
 * there, stalls 49 ms when fuzzed alone); a stall that grows with the input
 * runs to seconds and still fails it.
 */
const IDLE_WINDOW_MS = 3_000;
const LAG_FLOOR_MS = 20;
const LAG_RATIO_K = 20;
const PROCESSES: Record<string, keyof FuzzFleet['roles']> = {
  accounting: 'accounting',
  admission: 'admission',
  inventory: 'inventory',
  'placement-scheduler': 'placement-scheduler',
};

/** Reconciler passes after the fuzzing: at least this many, within RECONCILE_BOUND intervals. */
const RECONCILE_PASSES = 4;
const RECONCILE_BOUND = 40;

describe('every gRPC method under fuzzing (issue 29)', () => {
  let fleet: FuzzFleet | undefined;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  const found: Record<string, TargetFindings> = {};
  let heartbeat: ScenarioFinding | undefined;
  const rowsBefore: Record<string, number> = {};
  const rowsAfter: Record<string, number> = {};
  const lagIdle: Record<string, number> = {};
  const lagFuzz: Record<string, number> = {};
  const bystander = { idle: NaN, fuzz: NaN };
  let probe: LagProbe | undefined;
  const metricsUrl = (p: string) => `${fleet!.roles[PROCESSES[p]].urls.admin}/metrics`;

  beforeAll(async () => {
    const t0 = Date.now();
    const phases: string[] = [];
    const mark = (what: string) => phases.push(`${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    db = await createTestDatabase('llmgw_fuzz');
    fleet = await startFuzzFleet({ pki: await testPki(), databaseUrl: db.url });
    Object.assign(rowsBefore, await rowCounts(db.url));
    // The idle reference: each process's largest event-loop delay over IDLE_WINDOW_MS with nothing sent to it
    // (a measuring window, not a wait for an event).
    for (const p of Object.keys(PROCESSES)) await eventLoopMaxMs(metricsUrl(p));
    for (const p of Object.keys(PROCESSES)) takeEventLoopMaxMs(metricsUrl(p));
    probe = await startLagProbe();
    await probe.takeMaxMs();
    await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
    bystander.idle = await probe.takeMaxMs();
    for (const p of Object.keys(PROCESSES)) {
      await eventLoopMaxMs(metricsUrl(p));
      lagIdle[p] = takeEventLoopMaxMs(metricsUrl(p)) ?? NaN;
    }
    mark('idle window');
    // A seeded sample per method (every category kept); methods in parallel, so hangs overlap.
    const opts = { samplePerMethod: 8, seed: 29, hangMs: 10_000, concurrency: 2, methodConcurrency: 6 };
    mark('fleet up');
    const run = async (name: string, o = opts) => {
      found[name] = await fuzzTarget(
        fleet!.targets.find((t) => t.name === name)!,
        o,
      );
      mark(name);
    };
    // Beside accounting and admission: inventory's internal port and the scheduler (which calls
    // inventory), then the fleet port one case at a time (a stalling Register must not time out its
    // neighbours), then the big heartbeat last (it leaves inventory and the reconciler busy with its shards).
    await Promise.all([
      run('accounting'),
      run('admission'),
      (async () => {
        await Promise.all([run('inventory'), run('placement-scheduler')]);
        await run('inventory-agent', { ...opts, concurrency: 1 });
        heartbeat = await fleet!.bigHeartbeat(HEARTBEAT_SHARDS);
        mark('heartbeat');
      })(),
    ]);
    bystander.fuzz = await probe.takeMaxMs();
    for (const p of Object.keys(PROCESSES)) {
      await eventLoopMaxMs(metricsUrl(p));
      lagFuzz[p] = takeEventLoopMaxMs(metricsUrl(p)) ?? NaN;
    }
    Object.assign(rowsAfter, await rowCounts(db.url));
    // The table: what each method answered.
    const lag = [
      ...Object.keys(PROCESSES).map((p) => `${p} ${lagIdle[p].toFixed(0)} → ${lagFuzz[p].toFixed(0)}`),
      `bystander ${bystander.idle.toFixed(0)} → ${bystander.fuzz.toFixed(0)}`,
    ].join(', ');
    const rows = Object.keys(ROW_SOURCES)
      .map((t) => `${t} ${rowsBefore[t]} → ${rowsAfter[t]}`)
      .join(', ');
    process.stdout.write(
      `${formatFindings(Object.values(found))}\n${heartbeat!.name}: ${heartbeat!.detail}\nevent-loop max ms, idle ${IDLE_WINDOW_MS} ms → fuzzing: ${lag}\nrows: ${rows}\n${phases.join(', ')}\n`,
    );
  }, 240_000);

  afterAll(async () => {
    probe?.stop();
    await fleet?.stop();
    await db?.drop();
  }, 60_000);

  it.each(SERVICES)('%s: every method fuzzed; alive; a valid call answered after; no hang, no INTERNAL, no leak, no echo', (name) => {
    const f = found[name];
    const target = fleet!.targets.find((t) => t.name === name)!;
    expect(f.methods.map((m) => m.path)).toEqual(loadFuzzMethods(undefined, (s) => target.services.includes(s)).map((m) => m.path));
    for (const m of f.methods) expect([m.method, m.cases > 0, m.alive]).toEqual([m.method, true, true]);
    expect(f.alive).toBe(true);
    expect(f.validAfter).toBe('OK');
    const bad = f.methods.flatMap((m) =>
      m.results
        .filter((r) => r.leak || r.echo || r.hang || r.handlerError)
        .map((r) => `${m.method} ${r.id}: ${r.code}${r.leak ? ` leak:${r.leak}` : ''}${r.echo ? ' echo' : ''} ${r.message.slice(0, 120)}`),
    );
    expect(bad).toEqual([]);
  });

  it('inventory refuses a heartbeat with 20,000 shards (over its cap) without applying any, and keeps serving', () => {
    // Its event-loop stall counts in inventory's figure of the stall test below.
    expect(heartbeat).toMatchObject({ alive: true });
    expect(heartbeat!.detail).toMatch(/^health OK/);
    expect(heartbeat!.detail).toMatch(/inventory shows 0 shards for the node; agent stream ended/);
    expect(found['inventory-agent'].alive && fleet!.targets.find((t) => t.name === 'inventory')!.alive!()).toBe(true);
  });

  it('no row was created from refused input: each table grew by at most the calls that answered OK', () => {
    const ok = (target: string, method: RegExp) => found[target].methods.filter((m) => method.test(m.method)).reduce((n, m) => n + (m.codes.OK ?? 0), 0);
    const grown = Object.fromEntries(Object.keys(ROW_SOURCES).map((t) => [t, rowsAfter[t] - rowsBefore[t]]));
    const allowed = Object.fromEntries(Object.entries(ROW_SOURCES).map(([t, f]) => [t, f(ok)]));
    for (const t of Object.keys(ROW_SOURCES)) {
      expect({ table: t, grown: grown[t], allowed: allowed[t], within: grown[t] >= 0 && grown[t] <= allowed[t] }).toEqual({
        table: t,
        grown: grown[t],
        allowed: allowed[t],
        within: true,
      });
    }
  });

  it('inventory knows no node but the two whose certificates registered them', async () => {
    // Register for any other node id is refused (its certificate names test-node-1), so it must leave no node behind.
    expect((await fleet!.nodeIds()).filter((n) => n !== 'test-node-1' && n !== 'test-node-2')).toEqual([]);
  });

  it("no event-loop stall: each process's largest delay while fuzzed is within K× the same run's reference (its idle self, a bystander)", () => {
    expect(Number.isFinite(bystander.fuzz)).toBe(true);
    for (const p of Object.keys(PROCESSES)) {
      expect([p, Number.isFinite(lagIdle[p]) && Number.isFinite(lagFuzz[p])]).toEqual([p, true]);
      const reference = Math.max(lagIdle[p], bystander.fuzz, LAG_FLOOR_MS);
      expect([p, Math.round(lagFuzz[p]), lagFuzz[p] <= LAG_RATIO_K * reference]).toEqual([p, Math.round(lagFuzz[p]), true]);
    }
  });

  it('the reconciler keeps its pace after everything: passes go on and a model target is placed and ready', async () => {
    const f = fleet!;
    // The fuzzing may have cordoned or drained test-node-2 (valid base messages name it): make it schedulable again.
    expect((await f.control('UncordonNode', { nodeId: 'test-node-2' })).code).toBe('OK');
    const passes = async () => (await f.metric('placement-scheduler', 'llmgw_placement_reconcile_passes_total')) ?? 0;
    const ready = async () => (await f.metric('placement-scheduler', 'llmgw_placement_replicas', { model: 'fuzz-model', state: 'ready' })) ?? 0;
    const p0 = await passes();
    const t0 = Date.now();
    const set = await f.control('SetModelTarget', { model: 'fuzz-model', minReplicas: 1, maxReplicas: 1 });
    expect([set.code, set.message]).toEqual(['OK', '']);
    let seen = { passes: 0, ready: 0 };
    await waitUntil(
      async () => {
        seen = { passes: (await passes()) - p0, ready: await ready() };
        return seen.passes >= RECONCILE_PASSES && seen.ready >= 1;
      },
      `${RECONCILE_PASSES} reconciler passes and fuzz-model ready within ${RECONCILE_BOUND} intervals`,
      { timeoutMs: RECONCILE_BOUND * f.reconcileIntervalMs, everyMs: 50 },
    ).catch(() => undefined);
    process.stdout.write(
      `reconciler after the fuzzing: ${seen.passes} passes and ${seen.ready} ready replica(s) of fuzz-model in ${Date.now() - t0} ms (interval ${f.reconcileIntervalMs} ms)\n`,
    );
    expect(seen.passes).toBeGreaterThanOrEqual(RECONCILE_PASSES);
    expect(seen.ready).toBe(1);
  }, 60_000);
});
