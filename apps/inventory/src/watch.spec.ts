import { fleetNode, fleetShard } from '@llmgw/inventory-rpc/testing';
import fc from 'fast-check';
import { WatchedFleet, mergeShardStatus, type FleetEvent, type FleetNode } from '@llmgw/inventory-rpc';
import { createLogger } from '@llmgw/observability';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { MemoryFence } from './fence';
import { MemoryFleetStore, type FleetStore } from './fleet-store';
import { RedisFleetStore } from './fleet-store-redis';
import { MemoryIntentStore } from './intent-store';
import { Inventory } from './inventory';

const log = createLogger({ service: 'inventory-test', level: 'silent' });
const NODES = ['n1', 'n2', 'n3'];
const STATES = ['SHARD_STATE_STARTING', 'SHARD_STATE_READY', 'SHARD_STATE_DRAINING', 'SHARD_STATE_STOPPED'] as const;

function node(id: string, shards: FleetNode['shards'] = []): FleetNode {
  return fleetNode({ shards, connectivityReason: '', connectivitySinceMs: 0 }, id);
}

type Op =
  | { k: 'reg'; n: string; shards: number }
  | { k: 'shard'; n: string; s: number; st: (typeof STATES)[number] }
  | { k: 'conn'; n: string; lost: boolean }
  | { k: 'rm'; n: string }
  | { k: 'drop'; c: number }
  | { k: 'resume'; c: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constant('reg' as const), n: fc.constantFrom(...NODES), shards: fc.nat(2) }),
  fc.record({ k: fc.constant('shard' as const), n: fc.constantFrom(...NODES), s: fc.nat(3), st: fc.constantFrom(...STATES) }),
  fc.record({ k: fc.constant('conn' as const), n: fc.constantFrom(...NODES), lost: fc.boolean() }),
  fc.record({ k: fc.constant('rm' as const), n: fc.constantFrom(...NODES) }),
  fc.record({ k: fc.constant('drop' as const), c: fc.nat(2) }),
  fc.record({ k: fc.constant('resume' as const), c: fc.nat(2) }),
);

async function apply(store: FleetStore, op: Op): Promise<void> {
  switch (op.k) {
    case 'reg': {
      const shards: FleetNode['shards'] = Array.from({ length: op.shards }, (_, i) =>
        fleetShard(`${op.n}-s${i}`, 'SHARD_STATE_READY', undefined, { replicaId: `r${i}`, adopted: true }),
      );
      const n = node(op.n, shards);
      await store.update(op.n, () => ({ node: n, events: [{ nodeChanged: n }] }));
      return;
    }
    case 'shard':
      await store.update(op.n, (c) => {
        if (!c) return null;
        const status = {
          shardId: `${op.n}-s${op.s}`,
          replicaId: `r${op.s}`,
          state: op.st,
          stateSinceMs: 1,
          message: '',
          exitCode: 0,
          exited: false,
          pid: 1,
          endpoint: '',
          spec: null,
          adopted: false,
          pgid: 0,
          restarts: 0,
          drained: false,
          download: null,
        };
        const shards = mergeShardStatus(c.shards, status);
        return { node: { ...c, shards }, events: [{ shardChanged: { nodeId: op.n, status: shards.find((x) => x.shardId === status.shardId)! } }] };
      });
      return;
    case 'conn':
      await store.update(op.n, (c) => {
        if (!c) return null;
        const n: FleetNode = { ...c, connectivity: op.lost ? 'CONNECTIVITY_LOST' : 'CONNECTIVITY_UNREACHABLE', connectivityReason: 'test' };
        return { node: n, events: [{ nodeChanged: n }] };
      });
      return;
    case 'rm':
      await store.update(op.n, (c) => (c ? { node: null, events: [{ nodeRemoved: { nodeId: op.n } }] } : null));
      return;
    default:
      return;
  }
}

interface Consumer {
  view: WatchedFleet;
  got: FleetEvent[];
  unsub?: () => void;
}

function inventory(store: FleetStore): Inventory {
  return new Inventory({
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
  });
}

function watch(inv: Inventory, c: Consumer, resume: boolean): void {
  c.unsub = inv.watch(
    { includeStats: false, resumeAfterRevision: resume ? c.view.revision : 0, resumeEpoch: resume ? c.view.epoch : '' },
    {
      push: (ev) => {
        const e = ev as FleetEvent;
        c.got.push(e);
        c.view.apply(e);
      },
    },
  );
}

/**
 * Runs the ops with three watch consumers that disconnect and resume at
 * random, then checks what each saw: revisions strictly increasing, each
 * change exactly once (no gap, no repeat) unless a snapshot stood in for
 * events the instance no longer held, and a final view equal to the store.
 */
async function check(store: FleetStore, ops: Op[], expectNoSnapshotAfterFirst: boolean): Promise<void> {
  const inv = inventory(store);
  const consumers: Consumer[] = [0, 1, 2].map(() => ({ view: new WatchedFleet(), got: [] }));
  for (const c of consumers) watch(inv, c, false);
  for (const op of ops) {
    if (op.k === 'drop') {
      consumers[op.c].unsub?.();
      consumers[op.c].unsub = undefined;
    } else if (op.k === 'resume') {
      if (!consumers[op.c].unsub) watch(inv, consumers[op.c], true);
    } else await apply(store, op);
  }
  for (const c of consumers) if (!c.unsub) watch(inv, c, true);
  for (const c of consumers) {
    c.unsub?.();
    expect(c.got[0].event).toBe('snapshot');
    for (let i = 1; i < c.got.length; i++) {
      const prev = c.got[i - 1].revision;
      const cur = c.got[i];
      if (cur.event === 'snapshot') {
        expect(expectNoSnapshotAfterFirst).toBe(false);
        expect(cur.revision).toBeGreaterThanOrEqual(prev);
      } else expect(cur.revision).toBe(prev + 1);
    }
    expect(c.view.list()).toEqual(store.mirror.all());
    expect(c.view.revision).toBe(store.mirror.revision);
  }
}

describe('WatchFleet: snapshot, then every change exactly once and in order, across disconnects', () => {
  it('in-process store, history large enough: never a second snapshot', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), async (ops) => check(new MemoryFleetStore({ historySize: 1000 }), ops, true)),
      { numRuns: 300 },
    );
  });

  it('in-process store, tiny history: a snapshot replaces what cannot be replayed, and nothing is lost', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), async (ops) => check(new MemoryFleetStore({ historySize: 3 }), ops, false)),
      { numRuns: 300 },
    );
  });

  describe('Redis-shared store', () => {
    const conns: Redis[] = [];
    const prefixes: string[] = [];
    afterAll(async () => {
      const r = new Redis('redis://127.0.0.1:6379');
      for (const p of prefixes) {
        const keys = await r.keys(`${p}*`);
        if (keys.length) await r.del(...keys);
      }
      await Promise.all([r, ...conns].map((c) => c.quit().catch(() => c.disconnect())));
    });

    async function redisStore(historySize: number): Promise<RedisFleetStore> {
      const prefix = `test:inv-watch:${randomBytes(5).toString('hex')}:`;
      prefixes.push(prefix);
      const redis = new Redis('redis://127.0.0.1:6379');
      const reader = new Redis('redis://127.0.0.1:6379');
      conns.push(redis, reader);
      return RedisFleetStore.open({ redis, reader, keyPrefix: prefix, historySize });
    }

    it('never writes an engine secret (ShardSpec.api_key) to Redis, even when a record carries one', async () => {
      const store = await redisStore(100);
      try {
        const spec = { shardId: 'r-r0', replicaId: 'r', apiKey: 'engine-secret-xyz', model: 'm' } as unknown as NonNullable<
          FleetNode['shards'][number]['spec']
        >;
        const n1 = node('n1', [{ shardId: 'r-r0', replicaId: 'r', state: 'SHARD_STATE_READY', spec } as FleetNode['shards'][number]]);
        await store.update('n1', () => ({ node: n1, events: [{ nodeChanged: n1 }] }));
        const r = new Redis('redis://127.0.0.1:6379');
        conns.push(r);
        const prefix = prefixes[prefixes.length - 1];
        const dump: string[] = [];
        for (const k of await r.keys(`${prefix}*`)) {
          const type = await r.type(k);
          if (type === 'hash') dump.push(JSON.stringify(await r.hgetall(k)));
          else if (type === 'stream') dump.push(JSON.stringify(await r.xrange(k, '-', '+')));
          else if (type === 'string') dump.push(String(await r.get(k)));
        }
        expect(dump.join('\n')).toContain('r-r0');
        expect(dump.join('\n')).not.toContain('engine-secret-xyz');
      } finally {
        await store.close();
      }
    });

    it('same property through the shared stream', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { maxLength: 40 }), async (ops) => {
          const store = await redisStore(1000);
          try {
            await check(store, ops, true);
          } finally {
            await store.close();
          }
        }),
        { numRuns: 25 },
      );
    }, 120_000);

    it('a second instance joining later serves the same state and revision, and resumes a watch begun on the first', async () => {
      const a = await redisStore(1000);
      const n1 = node('n1');
      await a.update('n1', () => ({ node: n1, events: [{ nodeChanged: n1 }] }));
      const c: Consumer = { view: new WatchedFleet(), got: [] };
      watch(inventory(a), c, false);
      const redis = new Redis('redis://127.0.0.1:6379');
      const reader = new Redis('redis://127.0.0.1:6379');
      conns.push(redis, reader);
      const b = await RedisFleetStore.open({ redis, reader, keyPrefix: prefixes[prefixes.length - 1], historySize: 1000 });
      expect(b.all()).toEqual(a.all());
      expect(b.revision).toBe(a.revision);
      c.unsub!();
      await apply(a, { k: 'shard', n: 'n1', s: 0, st: 'SHARD_STATE_READY' });
      await apply(a, { k: 'conn', n: 'n1', lost: false });
      await new Promise<void>((resolve) => {
        const t = setInterval(() => b.revision === a.revision && (clearInterval(t), resolve()), 5);
      });
      watch(inventory(b), c, true);
      c.unsub!();
      expect(c.got.map((e) => e.event)).toEqual(['snapshot', 'shardChanged', 'nodeChanged']);
      expect(c.got.map((e) => e.revision)).toEqual([1, 2, 3]);
      expect(c.view.list()).toEqual(b.all());
      await a.close();
      await b.close();
    });
  });
});
