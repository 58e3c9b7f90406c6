/**
 * Issue 26 end to end on real processes: inventory, the scheduler, a router
 * and one fake-GPU agent with three GPUs, whose shards are real sim-engines.
 * The cluster is full (an opportunistic replica and two standard replicas of
 * a project that borrows); a critical model is turned on and preempts the
 * opportunistic one; then a project turns on a model inside its
 * organisation's guarantee and takes a GPU back from the borrower. Each
 * victim is drained through the router's drain path under load: no request
 * to it fails.
 */
import { buildBundles, Load, simProfile, TestFleet } from './fleet';

jest.setTimeout(120_000);

// 4 tokens at 20 tokens/s: each request is in flight ~200 ms, so a drain always finds some.
const slow = (name: string) => simProfile(name, { args: ['--decode-tps', '20', '--prefill-tps', '0'] });
const CATALOG = {
  projects: [
    { name: 'chat', org: 'other' },
    { name: 'search', org: 'acme' },
  ],
  quotas: [{ org: 'acme', guarantee_gpus: 1 }],
  models: [
    { name: 'opp', source: 'sim/opp', capacity_class: 'opportunistic', scaling: { min: 1, max: 1 }, profiles: [slow('one-gpu')] },
    { name: 'borrow', source: 'sim/borrow', project: 'chat', scaling: { min: 2, max: 2 }, profiles: [slow('one-gpu')] },
    // Off until turned on with `ctl model target`.
    { name: 'crit', source: 'sim/crit', capacity_class: 'critical', profiles: [simProfile('one-gpu')] },
    { name: 'own', source: 'sim/own', project: 'search', profiles: [simProfile('one-gpu')] },
  ],
};

describe('sharing a full cluster on real processes: classes and guarantees', () => {
  const fleet = new TestFleet(CATALOG, [{ id: 's1', fakeGpus: '3xh100-80g' }]);

  beforeAll(async () => {
    buildBundles(['inventory', 'placement-scheduler', 'router', 'node-agent', 'sim-engine']);
    await fleet.start();
  }, 180_000);

  afterAll(() => fleet.close(), 60_000);

  const wait = (cond: () => boolean | Promise<boolean>, what: string) => fleet.wait(cond, what);
  const ready = async (model: string) => (await fleet.ready(model)).length;

  /** Turns `model` on under load on `victimModel` and `model`; returns the victim's replica id and both loads' results. */
  async function preemptUnderLoad(model: string, victimModel: string) {
    const before = (await fleet.ready(victimModel)).map((r) => r.replicaId);
    const victimLoad = new Load(fleet, victimModel, 3, 5);
    let newLoad: Load | undefined;
    try {
      await wait(() => victimLoad.results.filter((r) => r.status === 200).length >= 5, `load on ${victimModel}`);
      const ex = await fleet.explain(model);
      await fleet.target(model, 1);
      await wait(async () => (await ready(model)) === 1, `${model} ready`);
      // The load starts once the router's view has the new replica (its endpoint record follows READY).
      await wait(() => fleet.routed(model), `the router serves ${model}`);
      newLoad = new Load(fleet, model, 2, 5);
      await wait(
        async () => (await fleet.replicas(victimModel)).filter((r) => before.includes(r.replicaId)).length === before.length - 1,
        `one ${victimModel} replica gone`,
      );
      await wait(() => newLoad!.results.filter((r) => r.status === 200).length >= 10 && victimLoad.results.length >= 20, 'load after the preemption');
      const after = (await fleet.replicas(victimModel)).map((r) => r.replicaId);
      const victim = before.find((id) => !after.includes(id))!;
      return { ex, victim, victimResults: victimLoad.results, newResults: newLoad.results };
    } finally {
      await victimLoad.stop();
      await newLoad?.stop();
    }
  }

  it('starts full: the opportunistic replica and the borrower hold all three GPUs', async () => {
    await wait(async () => (await ready('opp')) === 1 && (await ready('borrow')) === 2, 'opp and borrow ready');
    expect(fleet.shards()).toHaveLength(3);
  });

  it('a critical model turned on preempts the opportunistic replica: drained, not cut, and no request to the critical model fails', async () => {
    const r = await preemptUnderLoad('crit', 'opp');
    // Before it acted, explain-placement showed the preemption it would make.
    expect(r.ex.room?.kind).toBe('preemption');
    expect(r.ex.room?.victims.map((v) => [v.model, v.why])).toEqual([['opp', 'class']]);
    expect(r.newResults.filter((x) => x.status !== 200)).toEqual([]);
    // Once its only replica is gone the router refuses new requests (503, no endpoint); none was cut (a connection error or 502).
    expect(r.victimResults.filter((x) => x.status !== 200 && x.status !== 503)).toEqual([]);
    // The victim was drained before it was stopped; the borrower was not touched.
    expect(fleet.statesOf.get(r.victim)).toEqual(expect.arrayContaining(['READY', 'DRAINING']));
    expect(await ready('borrow')).toBe(2);
    expect((await fleet.explain('opp')).schedulable).toBe(false);
    process.stderr.write(
      `e2e preemption: ${r.victimResults.length} requests to the victim's model (${r.victimResults.filter((x) => x.status !== 200).length} not 200), ${r.newResults.length} to crit, none failed\n`,
    );
  });

  it("an organisation's guarantee is taken back from the borrower the same way, never from the critical model", async () => {
    const r = await preemptUnderLoad('own', 'borrow');
    expect(r.ex.room?.victims.map((v) => [v.model, v.why])).toEqual([['borrow', 'guarantee']]);
    expect(r.newResults.filter((x) => x.status !== 200)).toEqual([]);
    // The borrower kept serving on its other replica: every request to it was answered.
    expect(r.victimResults.filter((x) => x.status !== 200)).toEqual([]);
    expect(fleet.statesOf.get(r.victim)).toEqual(expect.arrayContaining(['READY', 'DRAINING']));
    expect(await ready('crit')).toBe(1);
    process.stderr.write(`e2e guarantee: ${r.victimResults.length} requests to the borrower, ${r.newResults.length} to own, none failed\n`);
  });
});
