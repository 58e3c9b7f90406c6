/**
 * Issue 11, "the restart hole from the scheduler's side", on real
 * processes: the placement-scheduler is restarted (SIGTERM, then SIGKILL)
 * while replicas run on two fake-GPU node-agents. The new process adopts
 * every replica from what inventory reports: no StartShard is sent (its
 * placed counter stays 0), every engine keeps its pid, and no shard is
 * stopped as an orphan.
 */
import { waitUntil } from '@llmgw/testing';
import { BIG_AND_CHAT, buildBundles, E2E_WAIT as WAIT, TestFleet } from './fleet';

jest.setTimeout(120_000);

const CATALOG = { models: BIG_AND_CHAT };
const NODES = [
  { id: 'r1', fakeGpus: '2xh100-80g,fabric=fab-r' },
  { id: 'r2', fakeGpus: '2xh100-80g,fabric=fab-r' },
];

describe('placement-scheduler restarts while replicas run', () => {
  const fleet = new TestFleet(CATALOG, NODES);

  beforeAll(async () => {
    buildBundles(['inventory', 'placement-scheduler', 'node-agent', 'sim-engine']);
    await fleet.start({ router: false });
  }, 180_000);

  afterAll(() => fleet.close(), 60_000);

  const wait = (cond: () => boolean | Promise<boolean>, what: string) =>
    waitUntil(cond, what, WAIT).catch((e) => {
      throw new Error(`${(e as Error).message}\nshards: ${JSON.stringify(fleet.shards())}\n${fleet.logs(40)}`);
    });
  const allReady = async () => (await fleet.ready('big')).length === 1 && (await fleet.ready('chat')).length === 2;
  const engines = () => fleet.shards().map((s) => ({ shard: s.shardId, node: s.nodeId, pid: s.pid, state: s.state }));

  it.each(['SIGTERM', 'SIGKILL'] as const)('%s: the new scheduler adopts every replica; nothing is started twice or orphaned', async (signal) => {
    await wait(allReady, 'big and chat ready');
    await wait(() => fleet.shards().length === 4 && fleet.shards().every((s) => s.state === 'SHARD_STATE_READY' && s.pid > 0), 'four engines running');
    const before = engines();

    await fleet.scheduler!.stop(signal);
    await fleet.startScheduler(`sched-after-${signal.toLowerCase()}`);
    // Leader (after the lock TTL when the old one was killed), every replica adopted and Ready again.
    await wait(
      async () => (await fleet.schedulerMetric('llmgw_placement_leader')) === 1 && (await allReady()),
      'the new scheduler leading with every replica ready',
    );
    const passes = await fleet.schedulerMetric('llmgw_placement_reconcile_passes_total');
    await wait(async () => (await fleet.schedulerMetric('llmgw_placement_reconcile_passes_total')) >= passes + 3, 'three more passes');

    expect((await fleet.replicas()).map((r) => ({ model: r.model, adopted: r.adopted, state: r.state }))).toEqual([
      { model: 'big', adopted: true, state: 'REPLICA_STATE_READY' },
      { model: 'chat', adopted: true, state: 'REPLICA_STATE_READY' },
      { model: 'chat', adopted: true, state: 'REPLICA_STATE_READY' },
    ]);
    expect(await fleet.schedulerMetric('llmgw_placement_replicas_placed_total')).toBe(0);
    expect(await fleet.schedulerMetric('llmgw_placement_orphan_shards_stopped_total')).toBe(0);
    expect(await fleet.schedulerMetric('llmgw_placement_replicas_failed_total')).toBe(0);
    expect(engines()).toEqual(before);
  });
});
