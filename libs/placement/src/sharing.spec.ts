import { Reconciler, type PassResult, type ReconcilerOptions } from './index';
import type { PolicyConfig } from './policy';
import { makeModel, SimFleet, type NodeSpec } from './testing';
import type { Model } from './types';

/** The reconciler against an in-memory fleet whose agents obey at once between passes. */
class Cluster {
  t = 1_000_000;
  ids = 0;
  passes = 0;
  token: number | undefined = 1;
  readonly rec: Reconciler;
  constructor(
    readonly fleet: SimFleet,
    public catalog: Model[],
    policy: PolicyConfig = {},
    opts: Partial<ReconcilerOptions> = {},
  ) {
    this.rec = new Reconciler({
      catalog: () => this.catalog,
      sink: fleet,
      publisher: { publish: async () => undefined },
      fencingToken: () => this.token,
      now: () => this.t,
      newReplicaId: (m) => `${m}-${String(++this.ids).padStart(4, '0')}`,
      drainTimeoutMs: 60_000,
      reportGraceMs: 5_000,
      policy,
      ...opts,
    });
  }
  /** One pass, then the agents act: starting shards become Ready, draining ones finish their requests. */
  async pass(): Promise<PassResult> {
    const r = await this.rec.reconcile(this.fleet.view());
    this.passes++;
    this.fleet.readyAll();
    for (const s of this.fleet.live()) if (s.state === 'draining') this.fleet.drained(s.shardId);
    this.t += 1_000;
    return r;
  }
  /** Passes until nothing changes (at most n). */
  async settle(n = 6): Promise<void> {
    for (let i = 0; i < n; i++) await this.pass();
  }
  where(model: string): string[] {
    return this.rec
      .replicaViews()
      .filter((r) => r.model === model && (r.state === 'ready' || r.state === 'starting'))
      .flatMap((r) => r.shards.map((s) => s.nodeId))
      .sort();
  }
  commandsFor(model: string): string[] {
    return this.fleet.commands.filter((c) => c.shardId.startsWith(`${model}-`)).map((c) => c.kind);
  }
}

const node = (id: string, fabric: string, extra: Partial<NodeSpec> = {}): NodeSpec => ({ id, fabrics: fabric ? [fabric] : [], ...extra });

describe('room for the large (the fragmentation case)', () => {
  // Five nodes in three fabrics; a 3-node model (4 GPUs a node) in ib-a.
  const big = makeModel('big', [{ tp: 12, nodes: 3, gpusPerNode: 4 }]);
  const mid = makeModel('mid', [{ tp: 4 }], { min: 2, max: 2 });
  const one = makeModel('one', [{ tp: 1 }]);
  const onDemand = makeModel('ondemand', [{ tp: 4 }], { min: 0, max: 1, idleTimeoutMs: 0 });

  it('single-node replicas stay off the multi-node pool while there is room elsewhere, so a fresh node puts the 3-node model back in one pass', async () => {
    const fleet = new SimFleet([node('a1', 'ib-a'), node('a2', 'ib-a'), node('a3', 'ib-a'), node('b1', 'ib-b'), node('c1', 'ib-c')]);
    const c = new Cluster(fleet, [big, mid, one, onDemand]);
    await c.settle(2);
    expect(c.where('big')).toEqual(['a1', 'a2', 'a3']);
    // Without the preference, bin packing would put them on the half-full a-nodes.
    expect([...c.where('mid'), ...c.where('one')].every((n) => n === 'b1' || n === 'c1')).toBe(true);
    // a3 is lost; the on-demand model is asked for.
    fleet.lose('a3');
    c.rec.noteDemand('ondemand', c.t);
    await c.settle(3);
    expect(c.where('big')).toEqual([]);
    // A fresh node joins ib-a: the next pass places the 3-node model again.
    fleet.addNode(node('a4', 'ib-a'));
    const r = await c.pass();
    expect(r.unschedulable).not.toContain('big');
    expect(c.where('big')).toEqual(['a1', 'a2', 'a4']);
  });

  it('small replicas forced into the pool are moved out, one plan at a time, and the 3-node model is placed on the third pass (drain, stop, place)', async () => {
    // b1 and c1 are cordoned at first, so two 6-GPU replicas can only go on a1 and a2.
    const mid6 = makeModel('mid6', [{ tp: 6 }], { min: 2, max: 2 });
    const fleet = new SimFleet([node('a1', 'ib-a'), node('a2', 'ib-a'), node('b1', 'ib-b', { cordoned: true }), node('c1', 'ib-c', { cordoned: true })]);
    const c = new Cluster(fleet, [big, mid6]);
    await c.settle(2);
    expect(c.where('mid6')).toEqual(['a1', 'a2']);
    expect(c.where('big')).toEqual([]);
    // Room appears outside the pool and a fresh node joins ib-a.
    fleet.setNode('b1', { cordoned: false });
    fleet.setNode('c1', { cordoned: false });
    fleet.addNode(node('a3', 'ib-a'));
    let placedAt = 0;
    for (let i = 1; i <= 3 && !placedAt; i++) {
      await c.pass();
      if (c.where('big').length) placedAt = i;
    }
    expect(placedAt).toBe(3);
    expect(c.where('big')).toEqual(['a1', 'a2', 'a3']);
    expect(c.where('mid6')).toEqual(['b1', 'c1']);
    // The moved replicas were drained (graceful), never stopped before their drain ended.
    for (const id of ['mid6-0001', 'mid6-0002']) {
      const kinds = fleet.commands.filter((x) => x.shardId.startsWith(id)).map((x) => x.kind);
      expect(kinds).toEqual(['start', 'drain', 'stop']);
    }
    expect(c.rec.explain(big).schedulable).toBe(false);
  });

  it('explain-placement proposes the moves before they are made', async () => {
    const mid6 = makeModel('mid6', [{ tp: 6 }], { min: 2, max: 2 });
    const fleet = new SimFleet([node('a1', 'ib-a'), node('a2', 'ib-a'), node('b1', 'ib-b', { cordoned: true }), node('c1', 'ib-c', { cordoned: true })]);
    const c = new Cluster(fleet, [big, mid6]);
    await c.settle(2);
    fleet.setNode('b1', { cordoned: false });
    fleet.setNode('c1', { cordoned: false });
    fleet.addNode(node('a3', 'ib-a'));
    // A follower sees the new fleet without acting on it: explain shows the plan, nothing is sent.
    c.token = undefined;
    const sent = fleet.commands.length;
    await c.rec.reconcile(fleet.view());
    const e = c.rec.explain(big);
    expect(e.schedulable).toBe(false);
    expect(e.room?.kind).toBe('defragmentation');
    expect(e.room?.victims.map((v) => v.replica)).toEqual(['mid6-0001', 'mid6-0002']);
    expect(e.room?.decision.shards.map((s) => s.nodeId)).toEqual(['a1', 'a2', 'a3']);
    expect(fleet.commands.length).toBe(sent);
  });
});

describe('capacity classes and quotas in the reconciler', () => {
  const full = () => new SimFleet([node('n1', ''), node('n2', '')]);

  it('a critical model added to a full cluster drains the newest opportunistic replica, then takes its GPUs', async () => {
    const fleet = full();
    const std = makeModel('std', [{ tp: 8 }], {}, { capacityClass: 'standard' });
    const opp = makeModel('opp', [{ tp: 4 }], { min: 2, max: 2 }, { capacityClass: 'opportunistic' });
    const c = new Cluster(fleet, [std, opp]);
    await c.settle(2);
    expect(c.where('opp')).toHaveLength(2);
    const crit = makeModel('crit', [{ tp: 4 }], {}, { capacityClass: 'critical' });
    c.catalog = [std, opp, crit];
    const room = c.rec.explain(crit).room;
    expect(room?.kind).toBe('preemption');
    expect(room?.victims.map((v) => [v.replica, v.why])).toEqual([['opp-0003', 'class']]);
    await c.settle(3);
    expect(c.where('crit')).toHaveLength(1);
    expect(c.commandsFor('opp-0003')).toEqual(['start', 'drain', 'stop']);
    // The standard replica was never touched; the victim's model is short one replica and says why.
    expect(c.commandsFor('std')).toEqual(['start']);
    expect(c.where('opp')).toHaveLength(1);
    expect(c.rec.lastExplanation('opp')?.schedulable).toBe(false);
  });

  it('an organisation reclaims its guarantee from a borrower of the same class', async () => {
    const fleet = full();
    const borrower = makeModel('borrow', [{ tp: 4 }], { min: 4, max: 4 }, { project: 'chat' });
    const owner = makeModel('own', [{ tp: 4 }], { min: 1, max: 1 }, { project: 'search' });
    const policy: PolicyConfig = {
      projects: [
        { name: 'search', org: 'acme' },
        { name: 'chat', org: 'other' },
      ],
      quotas: [{ scope: 'org', name: 'acme', guaranteeGpus: 4 }],
    };
    const c = new Cluster(fleet, [borrower], policy);
    await c.settle(2);
    expect(c.where('borrow')).toHaveLength(4);
    c.catalog = [borrower, owner];
    await c.settle(3);
    expect(c.where('own')).toHaveLength(1);
    expect(c.where('borrow')).toHaveLength(3);
    expect(c.commandsFor('borrow-0004')).toEqual(['start', 'drain', 'stop']);
  });

  it('a lower class never preempts a higher one, and a limit is never passed', async () => {
    const fleet = full();
    const crit = makeModel('crit', [{ tp: 8 }], { min: 2, max: 2 }, { capacityClass: 'critical' });
    const opp = makeModel('opp', [{ tp: 1 }], {}, { capacityClass: 'opportunistic', project: 'lab' });
    const c = new Cluster(fleet, [crit, opp], { projects: [{ name: 'lab' }], quotas: [{ scope: 'project', name: 'lab', guaranteeGpus: 0, limitGpus: 0 }] });
    await c.settle(3);
    expect(c.where('crit')).toHaveLength(2);
    expect(c.where('opp')).toEqual([]);
    expect(c.fleet.commands.filter((x) => x.kind !== 'start')).toEqual([]);
    expect(c.rec.lastExplanation('opp')?.profiles[0].reason).toBe('quota-limit');
  });
});
