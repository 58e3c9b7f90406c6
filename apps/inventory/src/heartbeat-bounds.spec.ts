import type { agentV1 } from '@llmgw/contracts';
import { createLogger } from '@llmgw/observability';
import { EventEmitter } from 'node:events';
import { MemoryFence } from './fence';
import { MemoryFleetStore } from './fleet-store';
import { MemoryIntentStore } from './intent-store';
import { Inventory } from './inventory';
import { waitUntil } from '@llmgw/testing';
import { fleetShard } from '@llmgw/inventory-rpc/testing';

const log = createLogger({ service: 'inventory-test', level: 'silent' });

/** An AgentService.Connect call without the network: messages go straight to the handler. */
class FakeCall extends EventEmitter {
  written: agentV1.ControlMessage[] = [];
  status?: { code: number; details: string };
  constructor() {
    super();
    this.on('error', (e: { code: number; details: string }) => (this.status ??= e));
  }
  write(m: agentV1.ControlMessage) {
    this.written.push(m);
    return true;
  }
  end() {}
  getAuthContext() {
    return null;
  }
  getPeer() {
    return 'test';
  }
}

let reads = 0;
/** A shard status whose shard_id counts its reads: the work the inventory does per shard. */
function counted(i: number, state: agentV1.ShardState__Output): agentV1.ShardStatus__Output {
  const id = `junk-${i}-r0`;
  const s = fleetShard(id, state, undefined, { replicaId: `junk-${i}` });
  delete s.shardId;
  return Object.defineProperty(s, 'shardId', { get: () => (reads++, id), enumerable: true });
}

describe('Inventory: a heartbeat with many shards', () => {
  function setup(maxShardsPerNode?: number) {
    const store = new MemoryFleetStore({ historySize: 100_000 });
    const inv = new Inventory({
      instanceId: 'i',
      store,
      intents: new MemoryIntentStore(),
      fence: new MemoryFence(),
      log,
      requirePeerCert: false,
      missedHeartbeats: 3,
      lostAfterMs: 60_000,
      forgetAfterMs: 3_600_000,
      commandTimeoutMs: 1000,
      commandRecordTtlMs: 60_000,
      maxShardsPerNode,
    });
    const call = new FakeCall();
    inv.connectHandler()(call as never);
    return { inv, call };
  }
  const register = (call: FakeCall, shards: agentV1.ShardStatus__Output[]) =>
    call.emit('data', {
      msg: 'register',
      register: {
        node: { nodeId: 'gpu-1', gpus: [] },
        runningShards: shards,
        sessionId: 's1',
        agentStartedAtMs: 0,
        sentAtMs: 0,
        heartbeatIntervalMs: 1000,
        gpuHealth: [],
      },
    });
  const heartbeat = (call: FakeCall, shards: agentV1.ShardStatus__Output[]) =>
    call.emit('data', { msg: 'heartbeat', heartbeat: { seq: 1, sentAtMs: 0, gpus: [], shards } });

  it('applies 20,000 shards in linear work (shard ids read a bounded number of times each) when the cap allows it', async () => {
    const n = 20_000;
    const { inv, call } = setup(n);
    register(
      call,
      Array.from({ length: n }, (_, i) => counted(i, 'SHARD_STATE_STARTING')),
    );
    await waitUntil(() => call.written.length > 0, 'the fleet store to catch up', { timeoutMs: 20_000 });
    expect(inv.node('gpu-1')!.shards).toHaveLength(n);
    const events: string[] = [];
    inv.watch({ includeStats: false, resumeAfterRevision: 0, resumeEpoch: '' }, { push: (ev) => void events.push(ev.event!) });
    const hb = Array.from({ length: n }, (_, i) => counted(n - 1 - i, 'SHARD_STATE_READY'));
    reads = 0;
    heartbeat(call, hb);
    await waitUntil(() => inv.node('gpu-1')!.shards.every((s) => s.state === 'SHARD_STATE_READY'), 'the fleet store to catch up', { timeoutMs: 20_000 });
    // The old per-shard search and copy read ids n²/2 = 2×10⁸ times (5.9–7.6 s).
    expect(reads).toBeLessThan(20 * n);
    expect(events.filter((e) => e === 'shardChanged')).toHaveLength(n);
    expect(call.status).toBeUndefined();
    console.info(`20,000-shard heartbeat applied in process: ${reads} shard-id reads`);
  });

  it('refuses more shards than max_shards_per_node before touching any (INVALID_ARGUMENT naming the field)', async () => {
    const { inv, call } = setup();
    register(call, [counted(0, 'SHARD_STATE_READY')]);
    await waitUntil(() => call.written.length > 0, 'the fleet store to catch up', { timeoutMs: 20_000 });
    reads = 0;
    heartbeat(
      call,
      Array.from({ length: 20_000 }, (_, i) => counted(i, 'SHARD_STATE_READY')),
    );
    await waitUntil(() => call.status !== undefined, 'the fleet store to catch up', { timeoutMs: 20_000 });
    expect(call.status).toMatchObject({ code: 3, details: 'heartbeat.shards: 20000 entries; at most 1024 allowed' });
    expect(reads).toBe(0);
    expect(inv.node('gpu-1')!.shards).toHaveLength(1);
  });
});
