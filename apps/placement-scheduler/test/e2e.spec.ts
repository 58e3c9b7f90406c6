/**
 * Issue 11's end-to-end test on real processes: inventory, the
 * placement-scheduler, a router and three node-agents on fake GPUs in two
 * fabrics (fab-a: 2 nodes, fab-b: 1 node), whose shards are real
 * sim-engines, from a catalog written here. Heartbeats, Lost and the
 * reconciler run on short intervals (test/fleet.ts) so it takes seconds.
 */
import { BIG_AND_CHAT, buildBundles, Load, simProfile, TestFleet } from './fleet';

jest.setTimeout(120_000);

const CATALOG = {
  // idle_timeout 5 s: the on-demand case reads the replica READY just after its first 200, before idle stops it.
  models: [...BIG_AND_CHAT, { name: 'lazy', source: 'sim/lazy', scaling: { min: 0, max: 1, idle_timeout: '5s' }, profiles: [simProfile('one-gpu')] }],
};
const NODES = [
  { id: 'a1', fakeGpus: '2xh100-80g,fabric=fab-a' },
  { id: 'a2', fakeGpus: '2xh100-80g,fabric=fab-a' },
  { id: 'b1', fakeGpus: '2xh100-80g,fabric=fab-b' },
];

describe('placement on real processes: inventory, scheduler, router, three agents in two fabrics', () => {
  const fleet = new TestFleet(CATALOG, NODES);
  const fabricOfNode = (id: string) => NODES.find((n) => n.id === id)!.fakeGpus.split('fabric=')[1];

  beforeAll(async () => {
    buildBundles(['inventory', 'placement-scheduler', 'router', 'node-agent', 'sim-engine']);
    await fleet.start();
  }, 180_000);

  afterAll(() => fleet.close(), 60_000);

  const wait = (cond: () => boolean | Promise<boolean>, what: string) => fleet.wait(cond, what);

  const readyCount = async (model: string) => (await fleet.ready(model)).length;

  it('places the 2-node model inside one fabric, and the always-on model twice', async () => {
    await wait(async () => (await readyCount('big')) === 1 && (await readyCount('chat')) === 2, 'big and chat ready');
    const [big] = await fleet.ready('big');
    expect(big.shards).toHaveLength(2);
    expect(new Set(big.shards.map((s) => s.nodeId)).size).toBe(2);
    expect(big.shards.map((s) => fabricOfNode(s.nodeId))).toEqual(['fab-a', 'fab-a']);
    expect(big.fabric).toBe('fab-a');
    // The 2-node model serves through the router (rank 0 is its endpoint), once the router's view
    // has the replica: its endpoint record reaches the router a moment after READY.
    await wait(() => fleet.routed('big'), 'the router serves big');
    const res = await fleet.chat('big');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe('big');
    // Spread: the two chat replicas are on two nodes.
    const chat = await fleet.ready('chat');
    expect(new Set(chat.map((r) => r.shards[0].nodeId)).size).toBe(2);
  });

  it('an on-demand model answers 503 model_loading first, then serves, then stops after its idle timeout', async () => {
    expect(fleet.shards().filter((s) => s.model === 'lazy')).toEqual([]);
    const first = await fleet.chat('lazy');
    expect(first.status).toBe(503);
    expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(JSON.stringify(await first.json())).toContain('model_loading');
    // An unknown model is still 404, not loading.
    expect((await fleet.chat('no-such-model')).status).toBe(404);

    let served = 0;
    await wait(async () => {
      const r = await fleet.chat('lazy');
      await r.text();
      if (r.status === 200) served++;
      else expect(r.status).toBe(503);
      return served > 0;
    }, 'the on-demand model to serve');
    expect(await readyCount('lazy')).toBe(1);

    // No more requests: after idle_timeout (5 s) it drains and stops, and its GPU is free again.
    await wait(async () => (await fleet.replicas('lazy')).length === 0 && fleet.shards().every((s) => s.model !== 'lazy'), 'the idle on-demand model to stop');
  });

  it('SIGKILL of a node (agent and engines) under load: replicas re-placed, one fabric for the 2-node model, no request that had not started failed', async () => {
    const chatNodes = (await fleet.ready('chat')).map((r) => r.shards[0].nodeId);
    const victim = chatNodes.find((n) => fabricOfNode(n) === 'fab-a');
    expect(victim).toBeDefined(); // spread over fabrics puts one chat replica into each
    const survivorA = NODES.find((n) => n.id !== victim && fabricOfNode(n.id) === 'fab-a')!.id;

    const load = new Load(fleet, 'chat');
    try {
      await wait(() => load.results.filter((r) => r.status === 200).length >= 5, 'load flowing');
      const killedAt = Date.now();
      await fleet.crashNode(victim!);

      await wait(async () => {
        const chat = await fleet.ready('chat');
        return chat.length === 2 && chat.every((r) => r.shards[0].nodeId !== victim);
      }, 'chat re-placed off the lost node');
      // The 2-node model cannot stay in fab-a with one node left there, and never spans fab-a and fab-b.
      await wait(async () => (await fleet.replicas('big')).length === 0, 'the broken 2-node replica gone');
      const ex = await fleet.explain('big');
      expect(ex.schedulable).toBe(false);
      expect(JSON.stringify(ex)).toContain('NOT_ENOUGH_NODES');
      await wait(() => load.results.filter((r) => r.start > killedAt && r.status === 200).length >= 10, 'load after the crash');

      // The node comes back (same id, same state directory: its dead engines are reported FAILED, not adopted).
      await fleet.startAgent(victim!);
      await wait(async () => (await readyCount('big')) === 1, 'the 2-node model placed again');
      const [big] = await fleet.ready('big');
      expect(big.shards.map((s) => s.nodeId).sort()).toEqual([victim!, survivorA].sort());
      await load.stop();

      const failedAfter = load.results.filter((r) => r.start > killedAt && r.status !== 200);
      const inFlight = load.results.filter((r) => r.start <= killedAt && r.end > killedAt && r.status !== 200);
      expect({ failedAfterKill: failedAfter, inFlightAtKillFailed: inFlight.length }).toEqual({
        failedAfterKill: [],
        inFlightAtKillFailed: expect.any(Number),
      });
      expect(load.results.filter((r) => r.start > killedAt).length).toBeGreaterThan(10);
      process.stderr.write(
        `e2e SIGKILL: ${load.results.length} requests, ${load.results.filter((r) => r.start > killedAt).length} started after the kill (all 200), ${inFlight.length} in flight at the kill failed\n`,
      );
    } finally {
      await load.stop();
    }
    for (const [replica, fabrics] of fleet.multiNodeFabrics) expect({ replica, fabrics: [...fabrics] }).toEqual({ replica, fabrics: ['fab-a'] });
  });

  it('draining a node empties it with no failed request', async () => {
    const chatNodes = (await fleet.ready('chat')).map((r) => r.shards[0].nodeId);
    const node = chatNodes.find((n) => fabricOfNode(n) === 'fab-b') ?? chatNodes[0];
    const load = new Load(fleet, 'chat');
    try {
      await wait(() => load.results.filter((r) => r.status === 200).length >= 5, 'load flowing');
      await fleet.drain(node);
      await wait(() => fleet.shards().every((s) => s.nodeId !== node), `${node} empty`);
      await wait(async () => (await readyCount('chat')) === 2, 'chat back to two replicas');
      const chat = await fleet.ready('chat');
      expect(chat.every((r) => r.shards[0].nodeId !== node)).toBe(true);
      const n = load.results.length;
      await wait(() => load.results.length >= n + 5, 'load after the drain');
    } finally {
      await load.stop();
    }
    expect(load.results.filter((r) => r.status !== 200)).toEqual([]);
    expect(load.results.length).toBeGreaterThan(10);
    process.stderr.write(`e2e drain: ${load.results.length} requests, none failed\n`);
  });
});
