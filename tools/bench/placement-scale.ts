/**
 * Placement at fleet scale (issue 11): 1000 simulated nodes × 8 GPUs in 4
 * fabrics with mixed GPU classes, a 200-model catalog (single- and multi-node
 * profiles, 1–4 replicas each). Measures, in one process:
 *   1. planReplicas: every wanted replica placed from an empty fleet;
 *   2. explain-placement for every model (all profiles, every pool and node);
 *   3. one full reconciler pass from nothing (placement + a StartShard per
 *      shard into an in-memory fleet), then a steady-state pass.
 * With capacity classes, projects and quotas on the catalog, and racks, PDUs,
 * power budgets and a held rack on the fleet (issue 26): every placement is
 * checked against them (`--no-policy` measures without).
 * Targets: the whole catalog placed in < 10 s using < 500 MB (RSS).
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/placement-scale.ts [--quick] [--nodes N] [--models M]
 */
import { performance } from 'node:perf_hooks';
import { seeded } from '@llmgw/scheduling/testing';
import {
  CAPACITY_CLASSES,
  explain,
  Fleet,
  makeModel,
  makeNode,
  planReplicas,
  Policy,
  Reconciler,
  SimFleet,
  type Model,
  type NodeSpec,
  type PolicyConfig,
  type Profile,
} from '@llmgw/placement';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const num = (flag: string, d: number) => {
  const i = argv.indexOf(flag);
  return i >= 0 ? Number(argv[i + 1]) : d;
};
const NODES = num('--nodes', quick ? 100 : 1000);
const MODELS = num('--models', quick ? 20 : 200);

const rnd = seeded(42);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];

const CLASSES: Array<{ cls: string; cc: string; share: number }> = [
  { cls: 'h100-80g', cc: '9.0', share: 0.4 },
  { cls: 'a100-80g', cc: '8.0', share: 0.3 },
  { cls: 'h200-140g', cc: '9.0', share: 0.15 },
  { cls: 'l40s-45g', cc: '8.9', share: 0.15 },
];
const FABRICS = ['ib-a', 'ib-b', 'ib-c', 'ib-d'];

function classFor(i: number): (typeof CLASSES)[number] {
  let x = (i % 100) / 100;
  for (const c of CLASSES) {
    if (x < c.share) return c;
    x -= c.share;
  }
  return CLASSES[0];
}

const specs: NodeSpec[] = Array.from({ length: NODES }, (_, i) => {
  const c = classFor(i);
  // l40s nodes have no IB (single-node only); 2 % of nodes are cordoned, 1 % lost.
  return {
    id: `gpu-${String(i).padStart(4, '0')}`,
    // One address per node: engine ports are per address.
    mgmtAddr: `10.${Math.floor(i / 250)}.${i % 250}.1`,
    gpuClass: c.cls,
    cc: c.cc,
    fabrics: c.cls === 'l40s-45g' ? [] : [FABRICS[i % FABRICS.length]],
    nvlink: c.cls === 'l40s-45g' ? 'none' : 'all',
    cordoned: i % 50 === 7,
    condition: i % 100 === 13 ? 'lost' : 'ready',
    // 20 nodes a rack, two PDUs a rack; GPUs at 700 W (l40s 350 W), drawing some of it.
    location: { site: 'dc1', room: `room-${Math.floor(i / 500)}`, rack: `rack-${Math.floor(i / 20)}`, pdu: `pdu-${Math.floor(i / 10)}` },
    powerLimitW: c.cls === 'l40s-45g' ? 350 : 700,
    powerDrawW: 90,
  };
});
const usePolicy = !argv.includes('--no-policy');
const racks = Math.ceil(NODES / 20);
const PROJECTS = Array.from({ length: 12 }, (_, i) => ({ name: `proj-${i}`, team: `team-${i % 6}`, org: `org-${i % 3}` }));
const policyConfig: PolicyConfig = {
  projects: PROJECTS,
  quotas: [
    ...PROJECTS.map((p, i) => ({ scope: 'project' as const, name: p.name, guaranteeGpus: 64, ...(i % 4 === 0 ? { limitGpus: 512 } : {}) })),
    { scope: 'org', name: 'org-0', guaranteeGpus: 0, limitGpus: Math.floor(NODES * 8 * 0.4) },
  ],
  facility: {
    // One rack held for maintenance; every rack's budget is 90 % of its GPUs at their limit.
    held: [{ level: 'rack', name: `rack-${racks - 1}` }],
    budgets: Array.from({ length: racks }, (_, r) => ({ level: 'rack' as const, name: `rack-${r}`, watts: 20 * 8 * 700 * 0.9 })),
  },
};

function profileFor(cls: string, tp: number, nodes: number, priority: number, fp8: boolean): Partial<Profile> {
  return {
    name: `${cls}-tp${tp}${nodes > 1 ? `-${nodes}n` : ''}`,
    gpuClass: cls,
    tp: tp * nodes,
    nodes,
    gpusPerNode: tp,
    priority,
    args: fp8 ? ['--quantization', 'fp8'] : [],
  };
}

const models: Model[] = Array.from({ length: MODELS }, (_, i) => {
  const kind = rnd();
  let profiles: Array<Partial<Profile>>;
  if (kind < 0.05) profiles = [profileFor('h100-80g', 8, 2, 100, false), profileFor('h200-140g', 8, 2, 90, false)];
  else if (kind < 0.35) profiles = [profileFor('h100-80g', pick([4, 8]), 1, 100, rnd() < 0.5), profileFor('a100-80g', 8, 1, 50, false)];
  else if (kind < 0.7)
    profiles = [profileFor(pick(['h100-80g', 'a100-80g', 'h200-140g']), pick([1, 2]), 1, 100, false), profileFor('l40s-45g', pick([1, 2]), 1, 40, rnd() < 0.3)];
  else profiles = [profileFor(pick(['a100-80g', 'l40s-45g']), pick([1, 2, 4]), 1, 100, false)];
  const min = 1 + Math.floor(rnd() * 4);
  const capacityClass = CAPACITY_CLASSES[i % 3];
  return makeModel(
    `model-${String(i).padStart(3, '0')}`,
    profiles,
    { min, max: min + 2 },
    { capacityClass, project: PROJECTS[i % PROJECTS.length].name, ...(i % 10 === 0 ? { keepWithin: 'room' as const } : {}) },
  );
});
const policy = usePolicy ? new Policy(models, policyConfig) : undefined;

const wanted = models.reduce((s, m) => s + m.scaling.min, 0);
const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
let peakRss = process.memoryUsage().rss;
const sample = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));
const sampler = setInterval(sample, 20);

const nodes = specs.map(makeNode);
console.log(
  `fleet: ${NODES} nodes × 8 GPUs (${NODES * 8} GPUs), ${FABRICS.length} fabrics, classes ${CLASSES.map((c) => c.cls).join(', ')}; catalog: ${MODELS} models, ${wanted} replicas wanted`,
);
console.log(
  usePolicy
    ? `policy: 3 capacity classes, ${PROJECTS.length} projects in 3 orgs with ${policyConfig.quotas!.length} quotas, ${racks} racks with power budgets, 1 rack held, keep_within room on every 10th model`
    : 'policy: none (--no-policy)',
);

// 1. plan every replica
let t0 = performance.now();
const fleet = new Fleet(nodes);
const plan = planReplicas(
  fleet,
  models.map((m) => ({ model: m, count: m.scaling.min })),
  policy,
);
const planMs = performance.now() - t0;
sample();
const gpusUsed = plan.decisions.reduce((s, d) => s + d.shards.reduce((x, sh) => x + sh.gpuIndices.length, 0), 0);
const multi = plan.decisions.filter((d) => d.shards.length > 1).length;
console.log(
  `planReplicas: ${plan.decisions.length} replicas (${multi} multi-node) on ${gpusUsed} GPUs, ${plan.unschedulable.length} model(s) short, in ${planMs.toFixed(0)} ms`,
);

// 2. explain every model against the filled fleet
t0 = performance.now();
let candidates = 0;
for (const m of models) {
  const e = explain(fleet, m, { all: true, ...(policy ? { guard: policy.guard(m, fleet, policy.book([])) } : {}) });
  for (const p of e.profiles) for (const pool of p.pools) candidates += pool.nodes.length;
}
const explainMs = performance.now() - t0;
sample();
console.log(
  `explain (all profiles, every pool and node): ${MODELS} models, ${candidates} node candidates, in ${explainMs.toFixed(0)} ms (${(explainMs / MODELS).toFixed(1)} ms/model)`,
);

// 3. the reconciler: one pass from nothing, then a steady pass
async function reconcilerPasses(): Promise<{ first: number; steady: number; placed: number; commands: number }> {
  const sim = new SimFleet(specs);
  let ids = 0;
  const rec = new Reconciler({
    catalog: () => models,
    sink: sim,
    publisher: { publish: async () => undefined },
    fencingToken: () => 1,
    now: () => 1_000_000,
    newReplicaId: (m) => `${m}-${(++ids).toString(16).padStart(8, '0')}`,
    ...(usePolicy ? { policy: policyConfig } : {}),
  });
  let t = performance.now();
  const r = await rec.reconcile(sim.view());
  const first = performance.now() - t;
  sim.readyAll();
  t = performance.now();
  await rec.reconcile(sim.view());
  const steady = performance.now() - t;
  return { first, steady, placed: r.placed, commands: sim.commands.length };
}

void reconcilerPasses().then((r) => {
  sample();
  clearInterval(sampler);
  console.log(
    `reconciler: first pass placed ${r.placed} replicas and sent ${r.commands} StartShard in ${r.first.toFixed(0)} ms; steady-state pass ${r.steady.toFixed(0)} ms`,
  );
  const heap = process.memoryUsage().heapUsed;
  console.log(`memory: peak RSS ${mb(peakRss)} MB, heap used at end ${mb(heap)} MB`);
  const total = planMs;
  const ok = total < 10_000 && peakRss < 500 * 1024 * 1024;
  console.log(`target (whole catalog placed < 10 s, < 500 MB): ${ok ? 'met' : 'NOT met'} — ${(total / 1000).toFixed(2)} s, ${mb(peakRss)} MB`);
  if (!quick && !ok) process.exitCode = 1;
});
