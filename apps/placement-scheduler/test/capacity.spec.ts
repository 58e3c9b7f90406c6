/**
 * Issue 25 end to end on real processes (docs/capacity.md): inventory,
 * the placement-scheduler, admission, accounting (embedded Postgres), a
 * router and four node-agents on fake GPUs of three classes, whose shards
 * are sim-engines of known capacity: on h100-80g 8 sequences at once, on
 * a100-80g 4, each request 2.5 s long. `llmgw ctl bench --save` must find
 * those capacities through the router, `ctl plan` must pick the cheaper
 * class, the stale metric must follow the engine version, and the
 * autoscaler must add a replica while requests wait in admission, take it
 * back after its (shortened) quiet period, and not flap.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { AccountingClient } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import { spawnRole, waitUntil, type SpawnedRole } from '@llmgw/testing';
import { buildBundles, E2E_WAIT as WAIT, TestFleet } from './fleet';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '../../..');
const addr = (url: string) => url.replace(/^http:\/\//, '');
// A request of 10 output tokens at 4 tokens/s takes 2.5 s (a request over capacity waits about that long); no contention, so only the slots limit a replica.
const SIM = ['--decode-tps', '4', '--prefill-tps', '0', '--batch-contention', '0'];
const CATALOG = {
  models: [
    {
      name: 'cap',
      source: 'sim/cap',
      scaling: { min: 2, max: 2 },
      profiles: [
        { name: 'big', gpu_class: 'h100-80g', engine: 'sim', max_num_seqs: 8, priority: 100, args: SIM, startup_timeout: '60s' },
        { name: 'small', gpu_class: 'a100-80g', engine: 'sim', max_num_seqs: 4, priority: 50, args: SIM, startup_timeout: '60s' },
      ],
    },
    {
      name: 'auto',
      source: 'sim/auto',
      scaling: { min: 1, max: 2, target_waiting_per_replica: 1 },
      profiles: [
        {
          name: 'l40s',
          gpu_class: 'l40s-45g',
          engine: 'sim',
          max_num_seqs: 2,
          args: ['--decode-tps', '20', '--prefill-tps', '0', '--batch-contention', '0'],
          startup_timeout: '60s',
        },
      ],
    },
  ],
};
const NODES = [
  { id: 'h1', fakeGpus: '1xh100-80g' },
  { id: 'a1', fakeGpus: '1xa100-80g' },
  { id: 'l1', fakeGpus: '1xl40s-45g' },
  { id: 'l2', fakeGpus: '1xl40s-45g' },
];
const AUTOSCALER = { interval: '200ms', window: '1s', up_cooldown: '1s', down_cooldown: '1s', quiet_period: '3s' };

describe('capacity from measurement on real processes (issue 25)', () => {
  let accounting: SpawnedRole;
  const fleet = new TestFleet(CATALOG, NODES);
  let acct: AccountingClient;

  beforeAll(async () => {
    buildBundles(['inventory', 'placement-scheduler', 'router', 'node-agent', 'sim-engine', 'admission', 'accounting', 'ctl']);
    const cfg = join(fleet.dir, 'accounting.yaml');
    writeFileSync(cfg, stringify({ listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', database_url: 'pglite:memory', log_level: 'warn' }));
    accounting = await spawnRole('accounting', ['--config', cfg], { timeoutMs: 60_000 });
    acct = new AccountingClient({ address: addr(accounting.urls.grpc ?? accounting.url), actor: 'e2e' });
    // The scheduler reads the stored profiles from accounting (the stale metric).
    fleet.extra.scheduler = { autoscaler: AUTOSCALER, capacity_check_interval: '300ms', accounting: { address: addr(accounting.urls.grpc ?? accounting.url) } };
    await fleet.start({ admission: true });
  }, 300_000);

  afterAll(async () => {
    acct?.close();
    await fleet.close();
    await accounting?.stop();
  }, 60_000);

  const wait = (cond: () => boolean | Promise<boolean>, what: string) =>
    waitUntil(cond, what, WAIT).catch(async (e) => {
      const reps = await fleet.replicas().catch(() => []);
      throw new Error(`${(e as Error).message}\nreplicas: ${JSON.stringify(reps.map((r) => [r.model, r.profile, r.state, r.message]))}\n${fleet.logs(30)}`);
    });

  /** `llmgw ctl …` as an operator runs it, pointed at this stack. */
  const ctl = (...args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', LLMGW_QUIET_BUILD: '1' };
    for (const k of ['LLMGW_ACCOUNTING_ADDR', 'LLMGW_CONTROL_ADDR', 'LLMGW_CTL_CONFIG', 'LLMGW_ROUTER_URL', 'LLMGW_KEY']) delete env[k];
    const r = spawnSync(
      process.execPath,
      [
        join(ROOT, 'bin/llmgw.cjs'),
        'ctl',
        '--control',
        addr(fleet.scheduler!.urls.control),
        '--accounting',
        addr(accounting.urls.grpc ?? accounting.url),
        ...args,
      ],
      { cwd: fleet.dir, encoding: 'utf8', env, timeout: 180_000 },
    );
    if (r.status !== 0) throw new Error(`ctl ${args.join(' ')} exited ${r.status}:\n${r.stderr}\n${r.stdout}`);
    return r;
  };

  /** Sum of a scheduler metric's samples whose labels include `labels`. */
  const metric = async (name: string, labels: Record<string, string>) => {
    const text = await (await fetch(`${fleet.scheduler!.urls.admin}/metrics`)).text();
    const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    return text
      .split('\n')
      .filter((l) => l.split(/[{ ]/)[0] === name && want.every((w) => l.includes(w)))
      .reduce((s, l) => s + Number(l.split(' ').pop()), 0);
  };

  const bench = (profile: string, cost: string, ...extra: string[]) => {
    const out = join(fleet.dir, `bench-${profile}.json`);
    const r = ctl(
      'bench',
      'cap',
      '--profile',
      profile,
      '--router',
      fleet.router!.url,
      '--prompt-tokens',
      '16',
      '--output-tokens',
      '10',
      '--slo',
      'ttft_p99=1500ms,tpot_p99=500ms',
      '--min-requests',
      '4',
      '--requests-per-slot',
      '2',
      '--start',
      '2',
      '--max-concurrency',
      '32',
      '--save',
      '--relative-cost',
      cost,
      '--json',
      '--out',
      out,
      ...extra,
    );
    expect(r.stderr).toMatch(/concurrency 2: \d+ requests… TTFT p99/);
    const result = JSON.parse(r.stdout) as {
      maxConcurrencyAtSlo: number;
      gpuClass: string;
      chartFile: string;
      ramps: Array<{ steps: Array<{ failed: number }> }>;
    };
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(result);
    expect(readFileSync(result.chartFile, 'utf8')).toContain('<svg');
    return result;
  };

  it("ctl bench --save finds each class's configured capacity within 15 % through the router, and ctl plan picks the cheaper class", async () => {
    await wait(async () => (await fleet.ready('cap')).length === 2, 'cap ready on both classes');
    expect((await fleet.ready('cap')).map((r) => r.profile).sort()).toEqual(['big', 'small']);
    const big = bench('big', '4');
    // The second save applies both stored profiles at once (checked in the next case).
    const small = bench('small', '1', '--apply');
    expect(big.gpuClass).toBe('h100-80g');
    expect(Math.abs(big.maxConcurrencyAtSlo - 8)).toBeLessThanOrEqual(8 * 0.15);
    expect(Math.abs(small.maxConcurrencyAtSlo - 4)).toBeLessThanOrEqual(4 * 0.15);
    expect(big.maxConcurrencyAtSlo / small.maxConcurrencyAtSlo).toBeCloseTo(2, 0);

    const list = ctl('capacity', 'list', '--json');
    expect((JSON.parse(list.stdout) as Array<{ profile: string; maxConcurrencyAtSlo: number }>).map((p) => [p.profile, p.maxConcurrencyAtSlo])).toEqual([
      ['big', big.maxConcurrencyAtSlo],
      ['small', small.maxConcurrencyAtSlo],
    ]);
    // Twice the capacity at 4 times the cost: the a100 class is the cheaper way to carry the load. (At 2.5 a loaded
    // machine's measured throughputs could make a mix with one big replica cheaper by rounding; with 4, a big
    // replica always costs more than the small ones that carry its load while its measured ratio stays below 4.)
    const plan = JSON.parse(ctl('plan', 'cap', '--target-rps', '10', '--json').stdout) as {
      best: { cost: number; lines: Array<{ gpuClass: string }> };
      alternatives: Array<{ cost: number }>;
    };
    expect(plan.best.lines.map((l) => l.gpuClass)).toEqual(['a100-80g']);
    expect(plan.best.cost).toBeLessThanOrEqual(Math.min(...plan.alternatives.map((a) => a.cost)));
    expect(ctl('plan', 'cap', '--target-rps', '10').stdout).toMatch(/cheapest:\n {2}\d+ × small \(a100-80g\): \d+ × [\d.]+ req\/s = [\d.]+ req\/s, cost/);

    // ctl model target --tokens-per-sec applies the same sizing: 1.5 small replicas' tokens/s is 2 small (cost 2)
    // against 1 big (cost 4) — 2 is also the catalog's count, so the fleet stays as it is.
    const smallTput = (JSON.parse(list.stdout) as Array<{ profile: string; throughputTokPerSec: number }>).find(
      (p) => p.profile === 'small',
    )!.throughputTokPerSec;
    const tps = String(Math.round(smallTput * 1.5));
    const sized = JSON.parse(ctl('model', 'target', 'cap', '--tokens-per-sec', tps, '--json').stdout) as {
      plan: { best: { replicas: number } };
      model: { scaling: { minReplicas: number; maxReplicas: number }; scalingOverridden: boolean };
    };
    expect(sized.plan.best.replicas).toBe(2);
    expect(sized.model).toMatchObject({ scaling: { minReplicas: 2, maxReplicas: 2 }, scalingOverridden: true });
    expect(ctl('model', 'target', 'cap', '--tokens-per-sec', tps).stdout).toMatch(
      /cheapest:\n {2}2 × small \(a100-80g\): 2 × [\d.]+ tok\/s = [\d.]+ tok\/s, cost[\s\S]*\ncap: min 2, max 2 \(.*operator target\) — unchanged\n?$/,
    );
    ctl('model', 'target', 'cap', '--clear');
  });

  it('ctl capacity apply: the endpoint records carry weights in the ratio of the measured capacities, requests through the router split in about that ratio, one audit record', async () => {
    const stored = (await acct.capacity<accountingV1.ListCapacityProfilesResponse__Output>('ListCapacityProfiles', { model: 'cap' })).profiles;
    const conc = Object.fromEntries(stored.map((p) => [p.profile, p.maxConcurrencyAtSlo]));
    // `ctl bench --save --apply` applied them already: the same again changes nothing.
    const applied = ctl('capacity', 'apply', 'cap');
    expect(applied.stdout).toMatch(/applied the capacity of cap — unchanged:\n[\s\S]*big +h100-80g +\d+ +100 \(catalog 100\)/);
    const profileOf = new Map((await fleet.replicas('cap')).map((r) => [r.replicaId, r.profile]));
    const records = async () => new Map((await fleet.published()).filter((e) => e.model === 'cap').map((e) => [profileOf.get(e.id)!, e]));
    await wait(async () => ((await records()).get('small')?.weight ?? 100) < 100, 'the applied weights published');
    const eps = await records();
    const measured = conc.big / conc.small;
    const weights = eps.get('big')!.weight / eps.get('small')!.weight;
    console.log(`$ llmgw ctl capacity apply cap\n${applied.stdout}`);
    console.log(
      `capacity apply: MaxConcurrencyAtSLO big ${conc.big}, small ${conc.small} (ratio ${measured.toFixed(2)}); published weights big ${eps.get('big')!.weight}, small ${eps.get('small')!.weight} (ratio ${weights.toFixed(2)})`,
    );
    expect(Math.abs(weights - measured) / measured).toBeLessThanOrEqual(0.15);
    for (const p of stored) expect(eps.get(p.profile)!.targetWaiting).toBe(Math.max(1, p.engineWaitingAtSlo));
    const models = ctl('models').stdout;
    expect(models).toMatch(/capacity applied \(ctl capacity apply\):\n {2}cap: big weight 100 \(\d+ at SLO\), target waiting \d+; small weight \d+/);
    expect(ctl('capacity', 'show', 'cap', 'small').stdout).toMatch(
      /applied: +weight \d+, target waiting \d+ \(from MaxConcurrencyAtSLO \d+\), autoscaler target \d+/,
    );
    // One audit record per apply (newest first): the one bench --apply made changed the model, this one did not.
    const audit = JSON.parse(ctl('audit', '--target', 'cap', '--json').stdout) as Array<{ action: string; details: string }>;
    const applies = audit.filter((e) => e.action === 'model.capacity.apply').map((e) => JSON.parse(e.details) as { changed: boolean });
    expect(applies.map((d) => d.changed)).toEqual([false, true]);
    expect(applies[1]).toMatchObject({ capacity: { profiles: [{ profile: 'big', weight: 100 }, { profile: 'small' }] } });

    // 16 clients keep both replicas full (admission holds the rest): the served count per replica follows their capacities.
    const served = new Map<string, number>();
    let running = true;
    const client = async () => {
      while (running) {
        const res = await fetch(`${fleet.router!.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-llmgw-band': 'platinum' },
          body: JSON.stringify({ model: 'cap', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
        });
        await res.text();
        expect(res.status).toBe(200);
        const p = profileOf.get(res.headers.get('x-llmgw-replica') ?? '') ?? '?';
        served.set(p, (served.get(p) ?? 0) + 1);
      }
    };
    const clients = Array.from({ length: 16 }, client);
    // Eight rounds: counts move a batch at a time (4 on small, 8 on big, and a batch still in flight on each when
    // the clients stop), so over three rounds the split could land anywhere from 1.5 to 2.5 by phase alone.
    try {
      await waitUntil(() => (served.get('small') ?? 0) >= 32, 'eight rounds on the small replica', {
        timeoutMs: 120_000,
        everyMs: 100,
        seen: () => Object.fromEntries(served),
      }).catch(async (e) => {
        // What the router saw of the two replicas: where a split that never comes went instead.
        const text = await fetch(`${fleet.router!.urls.admin}/metrics`)
          .then((r) => r.text())
          .catch(() => '');
        const seen = text
          .split('\n')
          .filter((l) => /^llmgw_(candidates_filtered_total|cache_decision_total|endpoint_inflight|endpoint_breaker_state|endpoint_score)\{/.test(l));
        // A replica rebuilt since profileOf was read answers under a new id, counted as '?'.
        const reps = await fleet.replicas('cap').catch(() => []);
        throw new Error(
          `${(e as Error).message}\nreplicas now: ${JSON.stringify(reps.map((r) => [r.replicaId, r.profile, r.state]))} (read before: ${JSON.stringify([...profileOf])})\nrouter: ${seen.join('\n')}\n${fleet.logs(30)}`,
        );
      });
    } finally {
      // The clients stop whatever happens, so they do not load the tests after this one.
      running = false;
    }
    await Promise.all(clients);
    const split = (served.get('big') ?? 0) / (served.get('small') ?? 1);
    console.log(`capacity apply: served big ${served.get('big')}, small ${served.get('small')} (ratio ${split.toFixed(2)})`);
    expect(served.get('?')).toBeUndefined();
    expect(Math.abs(split - measured) / measured).toBeLessThanOrEqual(0.25);

    expect(ctl('capacity', 'apply', 'cap', '--clear').stdout).toMatch(/cap: applied capacity cleared/);
    await wait(async () => [...(await records()).values()].every((e) => e.weight === 100 && e.targetWaiting === undefined), 'the catalog weights again');
  });

  it('llmgw_capacity_profile_stale turns 1 when the engine version differs from the one measured, and back', async () => {
    await wait(
      async () =>
        (await metric('llmgw_capacity_profile_stale', { model: 'cap', profile: 'big' }).catch(() => -1)) === 0 &&
        (await fleet.schedulerMetric('llmgw_capacity_profile_stale').catch(() => -1)) === 0,
      'both stored profiles current',
    );
    const stored = await acct.capacity<accountingV1.CapacityProfile__Output>('GetCapacityProfile', { model: 'cap', profile: 'big' });
    // As if the engine had been upgraded since the measurement: the stored version is not the running one.
    await acct.capacity('SaveCapacityProfile', { ...stored, engineVersion: `${stored.engineVersion}-old` });
    await wait(async () => (await metric('llmgw_capacity_profile_stale', { model: 'cap', profile: 'big' })) === 1, 'cap/big stale');
    expect(await metric('llmgw_capacity_profile_stale', { model: 'cap', profile: 'small' })).toBe(0);
    await acct.capacity('SaveCapacityProfile', stored);
    await wait(async () => (await metric('llmgw_capacity_profile_stale', { model: 'cap', profile: 'big' })) === 0, 'cap/big current again');
  });

  /** Closed-loop clients of `auto` through the router; every answer recorded. */
  const load = (workers: () => number) => {
    const statuses: number[] = [];
    let running = true;
    const loop = async (i: number) => {
      while (running) {
        if (i >= workers()) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        const res = await fetch(`${fleet.router!.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'auto', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
        }).catch(() => undefined);
        statuses.push(res?.status ?? 0);
        await res?.text();
      }
    };
    const loops = Array.from({ length: 8 }, (_, i) => loop(i));
    return { statuses, stop: async () => ((running = false), await Promise.all(loops)) };
  };

  it('the autoscaler adds a replica while requests wait, and takes it back after the quiet period, with 0 failed requests', async () => {
    await wait(async () => (await fleet.ready('auto')).length === 1, 'auto on one replica');
    const l = load(() => 8);
    await wait(async () => (await fleet.ready('auto')).length === 2, 'a second replica of auto, READY');
    expect(await metric('llmgw_autoscaler_decisions_total', { model: 'auto', direction: 'up' })).toBe(1);
    await l.stop();
    await wait(
      async () => (await fleet.ready('auto')).length === 1 && (await fleet.replicas('auto')).length === 1,
      'auto back to one replica after the quiet period',
    );
    expect(await metric('llmgw_autoscaler_decisions_total', { model: 'auto', direction: 'down' })).toBe(1);
    expect(ctl('models').stdout).toMatch(/autoscaler:\n {2}auto: .*last change .*scaling down/);
    expect(ctl('replicas', '--model', 'auto').stdout).toMatch(/autoscaler:\n {2}auto: .*last change .*scaling down: quiet for \d+ s/);
    expect(l.statuses.length).toBeGreaterThanOrEqual(8);
    expect(l.statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('a load that comes and goes more often than the quiet period does not flap', async () => {
    const ups = await metric('llmgw_autoscaler_decisions_total', { model: 'auto', direction: 'up' });
    const downs = await metric('llmgw_autoscaler_decisions_total', { model: 'auto', direction: 'down' });
    // 1.5 s of 8 clients, 1.5 s of none, for 12 s: waiting swings across the target every phase.
    const t0 = Date.now();
    const l = load(() => (Math.floor((Date.now() - t0) / 1500) % 2 === 0 ? 8 : 0));
    await waitUntil(() => Date.now() - t0 >= 12_000, 'eight phases of load', { timeoutMs: 20_000, everyMs: 100 });
    await l.stop();
    const scaleEvents =
      (await metric('llmgw_autoscaler_decisions_total', { model: 'auto', direction: 'up' })) -
      ups +
      (await metric('llmgw_autoscaler_decisions_total', { model: 'auto', direction: 'down' })) -
      downs;
    expect(scaleEvents).toBeLessThanOrEqual(1);
    expect(l.statuses.filter((s) => s !== 200)).toEqual([]);
  });
});
