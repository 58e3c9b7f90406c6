import fc from 'fast-check';
import { classOf, classRank } from './classes';
import { Fleet } from './fleet';
import { addToFootprint, explain, place } from './place';
import { gpusOf, Policy, type PolicyConfig, type RunningReplica } from './policy';
import { planPreemption } from './preemption';
import type { QuotaRule } from './quotas';
import { makeModel, makeNode, type NodeSpec } from './testing';
import { CAPACITY_CLASSES, EMPTY_FOOTPRINT, type CapacityClass, type Model, type ModelFootprint, type Profile } from './types';

const PROJECTS = [
  { name: 'search', team: 'retrieval', org: 'acme' },
  { name: 'chat', team: 'assist', org: 'acme' },
  { name: 'lab', org: 'uni' },
];

/** What the project's GPUs are, counted here from the running replicas (not through QuotaBook). */
function usedBy(rule: QuotaRule, running: readonly RunningReplica[]): number {
  let n = 0;
  for (const r of running) {
    const p = PROJECTS.find((x) => x.name === r.project);
    if (!p) continue;
    const name = rule.scope === 'project' ? p.name : rule.scope === 'team' ? p.team : p.org;
    if (name !== rule.name || (rule.capacityClass && rule.capacityClass !== r.capacityClass)) continue;
    n += gpusOf(r);
  }
  return n;
}

interface World {
  readonly nodes: NodeSpec[];
  readonly models: Model[];
  readonly cfg: PolicyConfig;
}

const nodeArb = (i: number) =>
  fc
    .record({
      gpus: fc.constantFrom(2, 4, 8),
      fabric: fc.constantFrom('ib-a', 'ib-b', ''),
      rack: fc.constantFrom('r1', 'r2', 'r3'),
      pdu: fc.constantFrom('p1', 'p2'),
      limit: fc.constantFrom(300, 700),
      draw: fc.option(fc.integer({ min: 50, max: 400 }), { nil: undefined }),
    })
    .map((n): NodeSpec => ({
      id: `n${i}`,
      gpus: n.gpus,
      fabrics: n.fabric ? [n.fabric] : [],
      location: { rack: n.rack, pdu: n.pdu },
      powerLimitW: n.limit,
      ...(n.draw !== undefined ? { powerDrawW: n.draw } : {}),
    }));

const profileArb: fc.Arbitrary<Partial<Profile>> = fc.oneof(
  fc.constantFrom(1, 2, 4, 8).map((tp) => ({ tp })),
  fc.constantFrom(2, 4).map((g) => ({ tp: g * 2, nodes: 2, gpusPerNode: g })),
);

const modelArb = (i: number) =>
  fc
    .record({
      profile: profileArb,
      min: fc.integer({ min: 1, max: 3 }),
      cls: fc.constantFrom<CapacityClass>(...CAPACITY_CLASSES),
      project: fc.option(fc.constantFrom('search', 'chat', 'lab'), { nil: undefined }),
      keep: fc.constantFrom(undefined, 'rack' as const, 'pdu' as const),
    })
    .map((x) =>
      makeModel(
        `m${i}`,
        [x.profile],
        { min: x.min, max: x.min },
        { capacityClass: x.cls, ...(x.project ? { project: x.project } : {}), ...(x.keep ? { keepWithin: x.keep } : {}) },
      ),
    );

const ruleArb: fc.Arbitrary<QuotaRule> = fc
  .record({
    at: fc.constantFrom<Array<[QuotaRule['scope'], string]>>(
      ['project', 'search'],
      ['project', 'chat'],
      ['project', 'lab'],
      ['team', 'retrieval'],
      ['org', 'acme'],
      ['org', 'uni'],
    ),
    guarantee: fc.integer({ min: 0, max: 12 }),
    extra: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
    cls: fc.option(fc.constantFrom<CapacityClass>(...CAPACITY_CLASSES), { nil: undefined }),
  })
  .map((r) => ({
    scope: r.at[0],
    name: r.at[1],
    guaranteeGpus: r.guarantee,
    ...(r.extra !== undefined ? { limitGpus: r.guarantee + r.extra } : {}),
    ...(r.cls ? { capacityClass: r.cls } : {}),
  }));

const worldArb: fc.Arbitrary<World> = fc
  .record({
    n: fc.integer({ min: 2, max: 8 }),
    m: fc.integer({ min: 2, max: 8 }),
    rules: fc.array(ruleArb, { maxLength: 4 }),
    budget: fc.option(fc.integer({ min: 1000, max: 12000 }), { nil: undefined }),
    held: fc.boolean(),
  })
  .chain((w) =>
    fc.record({
      nodes: fc.tuple(...Array.from({ length: w.n }, (_, i) => nodeArb(i))),
      models: fc.tuple(...Array.from({ length: w.m }, (_, i) => modelArb(i))),
      cfg: fc.constant<PolicyConfig>({
        projects: PROJECTS,
        quotas: w.rules,
        facility: { budgets: w.budget ? [{ level: 'rack', name: 'r1', watts: w.budget }] : [], held: w.held ? [{ level: 'rack', name: 'r3' }] : [] },
      }),
    }),
  );

/**
 * Drives placement the way the reconciler does, critical first: each model
 * gets replicas up to min; when one does not place, the preemption planned on
 * a copy is executed (victims removed) and the placement made for real.
 * Checks every invariant after every step.
 */
function run(w: World): { preemptions: number; placed: number } {
  const policy = new Policy(w.models, w.cfg);
  const fleet = new Fleet(w.nodes.map(makeNode));
  const byName = new Map(w.models.map((m) => [m.name, m]));
  let running: RunningReplica[] = [];
  let ids = 0;
  let preemptions = 0;
  const footprint = (m: string): ModelFootprint => {
    let fp = EMPTY_FOOTPRINT;
    for (const r of running.filter((x) => x.model === m))
      fp = addToFootprint(
        fp,
        {
          model: m,
          profile: byName.get(m)!.profiles[0],
          fabric: '',
          gpuClass: r.gpuClass,
          pool: '',
          shards: r.shards.map((s, rank) => ({ ...s, rank, hcas: [] })),
        },
        fleet,
      );
    return fp;
  };
  const ordered = [...w.models].sort((a, b) => classRank(classOf(b)) - classRank(classOf(a)));
  for (const m of ordered) {
    for (let i = 0; i < m.scaling.min; i++) {
      const fp = footprint(m.name);
      let r = place(fleet, m, { footprint: fp, guard: policy.guard(m, fleet, policy.book(running)) });
      if (!r.ok) {
        const plan = planPreemption({ policy, fleet, running, model: m, footprint: fp });
        if (!plan) break;
        // Executing: every victim's class is at most the model's; a same-class victim is a guarantee claim.
        for (const v of plan.victims) {
          expect(classRank(v.replica.capacityClass)).toBeLessThanOrEqual(classRank(classOf(m)));
          if (v.replica.capacityClass === classOf(m)) expect(v.why).toBe('guarantee');
        }
        const before = running;
        const gone = new Set(plan.victims.map((v) => v.replica.id));
        running = running.filter((x) => !gone.has(x.id));
        for (const v of plan.victims) fleet.release(v.replica.shards);
        // Guarantees kept: no other project is taken below a guarantee it had reached.
        for (const rule of policy.rules) {
          if (rule.guaranteeGpus <= 0) continue;
          const had = usedBy(rule, before);
          const has = usedBy(rule, running);
          const others = plan.victims.some((v) => v.replica.project !== m.project && usedBy(rule, [v.replica]) > 0);
          if (others && has < had) expect(has).toBeGreaterThanOrEqual(Math.min(had, rule.guaranteeGpus));
        }
        preemptions++;
        // The dry run placed the replica: so does the real fleet now.
        r = place(fleet, m, { footprint: fp, guard: policy.guard(m, fleet, policy.book(running)) });
        expect(r.ok).toBe(true);
        if (!r.ok) break;
      }
      fleet.assign(r.decision);
      running = [
        ...running,
        {
          id: `r${++ids}`,
          model: m.name,
          project: m.project,
          capacityClass: classOf(m),
          createdAtMs: ids,
          gpuClass: r.decision.gpuClass,
          shards: r.decision.shards,
        },
      ];
      checkInvariants(w, policy, fleet, running);
    }
  }
  return { preemptions, placed: running.length };
}

function checkInvariants(w: World, policy: Policy, fleet: Fleet, running: readonly RunningReplica[]): void {
  for (const rule of policy.rules) if (rule.limitGpus !== undefined) expect(usedBy(rule, running)).toBeLessThanOrEqual(rule.limitGpus);
  const nodes = new Map(fleet.nodes.map((n) => [n.id, n]));
  for (const b of policy.facility.budgets) {
    let committed = 0;
    for (const r of running)
      for (const s of r.shards)
        if (nodes.get(s.nodeId)!.location?.[b.level] === b.name) committed += s.gpuIndices.length * nodes.get(s.nodeId)!.gpus[0].powerLimitW!;
    expect(committed).toBeLessThanOrEqual(b.watts);
  }
  for (const r of running) {
    const m = w.models.find((x) => x.name === r.model)!;
    for (const s of r.shards) for (const h of policy.facility.held) expect(nodes.get(s.nodeId)!.location?.[h.level]).not.toBe(h.name);
    if (m.keepWithin) {
      const labels = new Set(r.shards.map((s) => nodes.get(s.nodeId)!.location?.[m.keepWithin!]));
      expect(labels.size).toBe(1);
      expect([...labels][0]).toBeDefined();
    }
  }
}

describe('placement policy over random fleets and catalogs', () => {
  it('never passes a quota limit, a guarantee, a power cap, a held domain or keep_within; preemption only when its dry run placed, never upward', () => {
    let preempted = 0;
    fc.assert(
      fc.property(worldArb, (w) => {
        preempted += run(w).preemptions;
      }),
      { numRuns: 200, seed: 26 },
    );
    // The property exercised preemption, not only plain placement.
    expect(preempted).toBeGreaterThan(0);
  });
});

describe('worked cases', () => {
  const node = (id: string, extra: Partial<NodeSpec> = {}) => makeNode({ id, gpus: 4, fabrics: [], ...extra });

  it('a critical model preempts the newest opportunistic replica, never a standard one', () => {
    const fleet = new Fleet([node('a'), node('b')]);
    const std = makeModel('std', [{ tp: 4 }], {}, { capacityClass: 'standard' });
    const opp = makeModel('opp', [{ tp: 2 }], { min: 2, max: 2 }, { capacityClass: 'opportunistic' });
    const crit = makeModel('crit', [{ tp: 2 }], {}, { capacityClass: 'critical' });
    const policy = new Policy([std, opp, crit]);
    const running: RunningReplica[] = [];
    for (const [m, id, at] of [
      [std, 's1', 1],
      [opp, 'o1', 2],
      [opp, 'o2', 3],
    ] as const) {
      const d = place(fleet, m).ok ? (place(fleet, m) as { decision: ReturnType<typeof explain>['decision'] }).decision! : undefined;
      fleet.assign(d!);
      running.push({ id, model: m.name, capacityClass: classOf(m), createdAtMs: at, gpuClass: d!.gpuClass, shards: d!.shards });
    }
    expect(place(fleet, crit).ok).toBe(false);
    const plan = planPreemption({ policy, fleet, running, model: crit })!;
    expect(plan.victims.map((v) => v.replica.id)).toEqual(['o2']);
    expect(plan.victims[0].why).toBe('class');
    // The fleet itself is untouched by the dry run.
    expect(place(fleet, crit).ok).toBe(false);
    // An opportunistic model finds nothing to preempt: every replica is of its class or higher.
    expect(planPreemption({ policy, fleet, running, model: makeModel('opp2', [{ tp: 2 }], {}, { capacityClass: 'opportunistic' }) })).toBeUndefined();
  });

  it('a project reclaims its guarantee from a borrower of the same class, and not beyond it', () => {
    const fleet = new Fleet([node('a')]);
    const borrower = makeModel('b', [{ tp: 2 }], { min: 2, max: 2 }, { project: 'chat' });
    const owner = makeModel('o', [{ tp: 2 }], {}, { project: 'search' });
    const cfg: PolicyConfig = { projects: PROJECTS, quotas: [{ scope: 'project', name: 'search', guaranteeGpus: 2 }] };
    const policy = new Policy([borrower, owner], cfg);
    const running: RunningReplica[] = [];
    for (const at of [1, 2]) {
      const r = place(fleet, borrower);
      if (!r.ok) throw new Error('setup');
      fleet.assign(r.decision);
      running.push({
        id: `b${at}`,
        model: 'b',
        project: 'chat',
        capacityClass: 'standard',
        createdAtMs: at,
        gpuClass: r.decision.gpuClass,
        shards: r.decision.shards,
      });
    }
    const plan = planPreemption({ policy, fleet, running, model: owner })!;
    expect(plan.victims.map((v) => [v.replica.id, v.why])).toEqual([['b2', 'guarantee']]);
    // Once inside its guarantee, a second replica of the owner is no claim.
    fleet.release(plan.victims[0].replica.shards);
    fleet.assign(plan.decision);
    const after = [
      running[0],
      {
        id: 'o1',
        model: 'o',
        project: 'search',
        capacityClass: 'standard' as const,
        createdAtMs: 3,
        gpuClass: plan.decision.gpuClass,
        shards: plan.decision.shards,
      },
    ];
    expect(planPreemption({ policy, fleet, running: after, model: owner })).toBeUndefined();
  });

  it('explain names the quota, the held rack, the power cap and keep_within', () => {
    const fleet = new Fleet([
      node('a', { location: { rack: 'r1', pdu: 'p1' }, powerLimitW: 700 }),
      node('b', { location: { rack: 'r2', pdu: 'p1' }, powerLimitW: 700, fabrics: ['ib-a'] }),
      node('c', { location: { rack: 'r3', pdu: 'p2' }, fabrics: ['ib-a'] }),
    ]);
    const quota = makeModel('q', [{ tp: 4 }], {}, { project: 'lab' });
    const big = makeModel('big', [{ tp: 8, nodes: 2, gpusPerNode: 4 }], {}, { keepWithin: 'rack' });
    const small = makeModel('s', [{ tp: 4 }]);
    const policy = new Policy([quota, big, small], {
      projects: PROJECTS,
      quotas: [{ scope: 'org', name: 'uni', guaranteeGpus: 0, limitGpus: 2 }],
      facility: { held: [{ level: 'rack', name: 'r3' }], budgets: [{ level: 'rack', name: 'r1', watts: 2000 }] },
    });
    const book = policy.book([]);
    const q = explain(fleet, quota, { all: true, guard: policy.guard(quota, fleet, book) });
    expect(q.profiles[0].reason).toBe('quota-limit');
    expect(q.profiles[0].detail).toBe('org uni uses 0 of its 2-GPU limit; this replica needs 4');
    const s = explain(fleet, small, { all: true, guard: policy.guard(small, fleet, book) });
    const reasons = Object.fromEntries(s.profiles[0].pools[0].nodes.map((n) => [n.nodeId, [n.reason, n.detail]]));
    expect(reasons.a).toEqual(['power-cap', 'rack r1: 0 W in use + 2800 W would pass its 2000 W budget']);
    expect(reasons.c).toEqual(['facility-held', 'rack r3 is held out of placement']);
    expect(s.decision?.shards[0].nodeId).toBe('b');
    const k = explain(fleet, big, { all: true, guard: policy.guard(big, fleet, book) });
    expect(k.schedulable).toBe(false);
    expect(k.profiles[0].reason).toBe('keep-within');
    // Without keep_within the same two fabric nodes would do (c is held, so not even then).
    const loose = explain(fleet, { ...big, keepWithin: undefined }, { all: true, guard: policy.guard({ ...big, keepWithin: undefined }, fleet, book) });
    expect(loose.schedulable).toBe(false);
    expect(loose.profiles[0].reason).toBe('not-enough-nodes');
  });

  it('a power cap counts the power limit the agent reported, and facility.default_gpu_watts only where none was', () => {
    // l's GPUs report 350 W (an L40S's power.limit); u's report nothing and count the default 700 W.
    const fleet = new Fleet([node('u', { location: { rack: 'r2' } }), node('l', { location: { rack: 'r1' }, powerLimitW: 350 })]);
    const m = makeModel('m', [{ tp: 4 }]);
    const policy = new Policy([m], {
      facility: {
        budgets: [
          { level: 'rack', name: 'r1', watts: 1500 },
          { level: 'rack', name: 'r2', watts: 1500 },
        ],
      },
    });
    const e = explain(fleet, m, { all: true, guard: policy.guard(m, fleet, policy.book([])) });
    const reasons = Object.fromEntries(e.profiles[0].pools[0].nodes.map((n) => [n.nodeId, [n.reason, n.detail]]));
    expect(reasons.u).toEqual(['power-cap', 'rack r2: 0 W in use + 2800 W would pass its 1500 W budget']);
    expect(e.decision?.shards[0].nodeId).toBe('l');
    // A lower default lets u in as well: the default applies only where no limit was reported.
    const low = new Policy([m], { facility: { budgets: [{ level: 'rack', name: 'r2', watts: 1500 }], defaultGpuWatts: 300 } });
    const alone = new Fleet([node('u', { location: { rack: 'r2' } })]);
    const r = place(alone, m, { guard: low.guard(m, alone, low.book([])) });
    expect(r.ok && r.decision.shards[0].nodeId).toBe('u');
  });

  it('a single-node replica goes to a node outside a multi-node pool when it has the choice', () => {
    const fleet = new Fleet([makeNode({ id: 'a', fabrics: ['ib-a'] }), makeNode({ id: 'b', fabrics: ['ib-a'] }), makeNode({ id: 'z', fabrics: [] })]);
    const big = makeModel('big', [{ tp: 16, nodes: 2, gpusPerNode: 8 }]);
    const small = makeModel('small', [{ tp: 1 }]);
    const policy = new Policy([big, small]);
    const r = place(fleet, small, { guard: policy.guard(small, fleet, policy.book([])) });
    expect(r.ok && r.decision.shards[0].nodeId).toBe('z');
    // Without the policy the node order decides (a).
    const plain = place(fleet, small);
    expect(plain.ok && plain.decision.shards[0].nodeId).toBe('a');
  });
});
