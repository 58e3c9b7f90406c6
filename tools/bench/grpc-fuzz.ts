/**
 * Issue 29's fuzz run: every method of every gRPC service llmgw serves
 * (accounting's KeyResolver, TenancyAdmin and AuditLog; admission;
 * inventory's internal and fleet ports; the placement-scheduler's
 * ControlService), each a real `llmgw <role>` process over mTLS with the
 * test PKI, each method called as the role it needs, with every case the
 * fuzzer derives from the protos (empty, wrong wire types, 100 KB strings,
 * 10,000-element repeated fields, NUL and control characters, int64
 * extremes, unknown enums, random bytes, truncations, garbage on streams),
 * then a heartbeat with 20,000 shards. Prints one row per method (cases,
 * INTERNAL/UNKNOWN from handlers, grpc-js decode errors, hangs, echoes of
 * > 256 input characters, leaks of stack/SQL/paths, slowest answer, largest
 * event-loop delay the server reported) and totals.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/grpc-fuzz.ts
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/grpc-fuzz.ts --sample 12 --only accounting,admission
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/grpc-fuzz.ts --json > findings.json
 *
 * Options: --sample N (cases per method, seeded), --seed N, --hang-ms N (default 5000),
 * --concurrency N (calls in flight per method, default 4), --method-concurrency N (default 1), --only <target,…>, --method <substring>, --shards N (default 20000),
 * --database-url URL (default: a fresh database on the test Postgres), --details (print each bad case).
 */
import { createTestDatabase } from '@llmgw/db/testing';
import { formatFindings, fuzzTarget, fuzzTotals, startFuzzFleet, testPki, type TargetFindings } from '@llmgw/testing';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const flag = (name: string) => process.argv.includes(`--${name}`);
const num = (name: string, def?: number) => (arg(name) === undefined ? def : Number(arg(name)));

async function main(): Promise<void> {
  const json = flag('json');
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const only = arg('only')?.split(',');
  const method = arg('method');
  const db = arg('database-url') ? undefined : await createTestDatabase('llmgw_fuzz');
  const pki = await testPki();
  const t0 = Date.now();
  const fleet = await startFuzzFleet({ pki, databaseUrl: arg('database-url') ?? db!.url });
  log(`fleet up in ${Date.now() - t0} ms`);
  const all: TargetFindings[] = [];
  try {
    for (const t of fleet.targets) {
      if (only && !only.includes(t.name)) continue;
      const f = await fuzzTarget(t, {
        samplePerMethod: num('sample'),
        seed: num('seed', 29),
        hangMs: num('hang-ms', 5_000),
        concurrency: num('concurrency', 4),
        methodConcurrency: num('method-concurrency', 1),
        methodFilter: method ? (p) => p.includes(method) : undefined,
        onProgress: log,
      });
      all.push(f);
    }
    // Last: the reconciler then sees a node with shards it did not place.
    const agentPort = all.find((f) => f.target === 'inventory-agent');
    if (agentPort && !method) {
      const s = await fleet.bigHeartbeat(num('shards', 20_000));
      log(`${s.name}: ${s.detail}; event-loop max ${s.stallMs ?? '?'} ms`);
      agentPort.scenarios.push(s);
      agentPort.alive = s.alive;
    }
  } finally {
    await fleet.stop();
    await db?.drop();
  }
  const totals = fuzzTotals(all);
  if (json) {
    process.stdout.write(`${JSON.stringify({ totals, targets: all }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${formatFindings(all)}\n`);
  if (flag('details')) {
    for (const t of all) {
      for (const m of t.methods) {
        for (const r of m.results) {
          if (r.handlerError || r.hang || r.echo || r.leak)
            process.stdout.write(
              `${t.target} ${m.method} ${r.id}: ${r.code}${r.hang ? ' (hang)' : ''}${r.echo ? ' (echo)' : ''}${r.leak ? ` (leak: ${r.leak})` : ''} ${JSON.stringify(r.message.slice(0, 160))}\n`,
            );
        }
      }
      for (const s of t.scenarios)
        process.stdout.write(`${t.target} scenario ${s.name}: ${s.ok ? 'ok' : 'FAIL'}: ${s.detail}; event-loop max ${s.stallMs ?? '?'} ms\n`);
    }
  }
  process.stdout.write(
    `\n${totals.cases} cases in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${totals.handlerErrors} INTERNAL/UNKNOWN from handlers, ${totals.deserializeErrors} grpc-js decode errors, ${totals.hangs} hangs, ${totals.echoes} echoes, ${totals.leaks} leaks; crashed: ${totals.crashed.join(', ') || 'none'}; valid call failed after: ${totals.failedValid.join(', ') || 'none'}\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
