import { Registry } from 'prom-client';
import { createLogger } from '@llmgw/observability';
import { CapacityStaleCheck, runningReplicas, staleness, type StoredProfile } from './capacity-stale';
import type { InventoryNodeLike } from './fleet-map';

const node = (
  version: string,
  shards: Array<{ replica: string; model: string; profile: string; args: string[]; state?: string; rank?: number }>,
): InventoryNodeLike =>
  ({
    info: { nodeId: 'n1', versions: { engines: [{ engine: 'sim', version, binary: 'sim', error: '' }] } },
    connectivity: 'CONNECTIVITY_CONNECTED',
    gpuHealth: [],
    shards: shards.map((s) => ({
      shardId: `${s.replica}-0`,
      replicaId: s.replica,
      state: s.state ?? 'SHARD_STATE_READY',
      spec: { replicaId: s.replica, model: s.model, profile: s.profile, engine: 'sim', rank: s.rank ?? 0, args: s.args },
    })),
  }) as unknown as InventoryNodeLike;

const stored: StoredProfile = { model: 'm', profile: 'p', engine: 'sim', engineVersion: '0.1.0', engineArgs: ['--decode-tps', '10'] };

describe('capacity profile staleness', () => {
  it("reads the Ready leader shards with their node's engine version", () => {
    const r = runningReplicas([
      node('0.1.0', [
        { replica: 'r1', model: 'm', profile: 'p', args: ['--decode-tps', '10'] },
        { replica: 'r2', model: 'm', profile: 'p', args: [], state: 'SHARD_STATE_STARTING' },
        { replica: 'r3', model: 'm', profile: 'p', args: [], rank: 1 },
      ]),
    ]);
    expect(r).toEqual([{ replicaId: 'r1', model: 'm', profile: 'p', engine: 'sim', engineVersion: '0.1.0', args: ['--decode-tps', '10'] }]);
  });

  it('is stale when the running version or arguments differ, not otherwise, and says which', () => {
    const same = runningReplicas([node('0.1.0', [{ replica: 'r1', model: 'm', profile: 'p', args: ['--decode-tps', '10'] }])]);
    expect(staleness([stored], same).get('m/p')).toBe('');
    const upgraded = runningReplicas([node('0.2.0', [{ replica: 'r1', model: 'm', profile: 'p', args: ['--decode-tps', '10'] }])]);
    expect(staleness([stored], upgraded).get('m/p')).toBe('replica r1 runs sim 0.2.0, measured on 0.1.0');
    const relaunched = runningReplicas([node('0.1.0', [{ replica: 'r1', model: 'm', profile: 'p', args: ['--decode-tps', '20'] }])]);
    expect(staleness([stored], relaunched).get('m/p')).toMatch(/arguments "--decode-tps 20", measured with "--decode-tps 10"/);
    expect(staleness([stored], []).get('m/p')).toBe('');
  });

  it('sets llmgw_capacity_profile_stale per stored profile on the leader only', async () => {
    const registry = new Registry();
    let version = '0.1.0';
    let leader = false;
    const check = new CapacityStaleCheck({
      list: async () => ({ profiles: [{ ...stored, engineArgs: [...stored.engineArgs] }] as never }),
      nodes: () => [node(version, [{ replica: 'r1', model: 'm', profile: 'p', args: ['--decode-tps', '10'] }])],
      leader: () => leader,
      log: createLogger({ service: 'test', level: 'silent' }),
      registry,
      intervalMs: 60_000,
    });
    const value = async () =>
      (await registry.getSingleMetric('llmgw_capacity_profile_stale')!.get()).values.find((v) => v.labels.model === 'm' && v.labels.profile === 'p')?.value;
    expect(await check.check()).toBeUndefined();
    leader = true;
    await check.check();
    expect(await value()).toBe(0);
    version = '0.2.0';
    await check.check();
    expect(await value()).toBe(1);
    check.close();
  });
});
