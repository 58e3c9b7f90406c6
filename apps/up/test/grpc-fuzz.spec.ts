import { createTestDatabase } from '@llmgw/db/testing';
import { formatFindings, fuzzTarget, loadFuzzMethods, startFuzzFleet, testPki, type FuzzFleet, type ScenarioFinding, type TargetFindings } from '@llmgw/testing';

/**
 * Issue 29's fuzz suite in `npm test`: every method of every gRPC service, as
 * real `llmgw <role>` processes over mTLS, called as the role it needs with a
 * seeded sample of the cases the fuzzer derives from the protos (every
 * category kept: empty, wrong wire types, 100 KB strings, 10,000-element
 * repeated fields, NUL and control characters, int64 extremes, unknown enums,
 * random bytes, truncations, garbage on streams), then a heartbeat with
 * many shards (HEARTBEAT_SHARDS). `tools/bench/grpc-fuzz.ts` runs every case and prints the
 * table (docs/security.md).
 *
 * Every service is held to: its process alive, a valid call answered after
 * the fuzzing, no hang, no INTERNAL/UNKNOWN from a handler (grpc-js's own
 * "error deserializing request" is not a handler's answer), no stack trace /
 * SQL / file path in any status message, no status echoing more than 256
 * characters of input. Before the fixes of issue 29 the full run found 47
 * INTERNAL answers and 30 hangs (docs/grpc-fuzz.md).
 */
/**
 * Shards in the big heartbeat: 20,000, far over inventory's per-node cap
 * (max_shards_per_node, 1024), which refuses it before merging anything.
 */
const HEARTBEAT_SHARDS = 20_000;

const SERVICES = ['accounting', 'admission', 'inventory', 'inventory-agent', 'placement-scheduler'];

describe('every gRPC method under fuzzing (issue 29)', () => {
  let fleet: FuzzFleet | undefined;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  const found: Record<string, TargetFindings> = {};
  let heartbeat: ScenarioFinding | undefined;

  beforeAll(async () => {
    const t0 = Date.now();
    const phases: string[] = [];
    const mark = (what: string) => phases.push(`${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    db = await createTestDatabase('llmgw_fuzz');
    fleet = await startFuzzFleet({ pki: await testPki(), databaseUrl: db.url });
    // A seeded sample per method (every category kept); methods in parallel, so hangs overlap.
    const opts = { samplePerMethod: 8, seed: 29, hangMs: 10_000, concurrency: 2, methodConcurrency: 6 };
    mark('fleet up');
    const run = async (name: string, o = opts) => {
      found[name] = await fuzzTarget(fleet!.targets.find((t) => t.name === name)!, o);
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
    // The table: what each method answered.
    process.stdout.write(`${formatFindings(Object.values(found))}\n${heartbeat!.name}: ${heartbeat!.detail}\n${phases.join(', ')}\n`);
  }, 240_000);

  afterAll(async () => {
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
    // Its event-loop stall (issue 29: none over 100 ms) is measured and printed, not asserted: wall time on a shared machine.
    expect(heartbeat).toMatchObject({ alive: true });
    expect(heartbeat!.detail).toMatch(/^health OK/);
    expect(heartbeat!.detail).toMatch(/inventory shows 0 shards for the node; agent stream ended/);
    expect(found['inventory-agent'].alive && fleet!.targets.find((t) => t.name === 'inventory')!.alive!()).toBe(true);
  });
});
