import { randomUUID } from 'node:crypto';
import { encode } from '@msgpack/msgpack';
import { createLogger, createRegistry } from '@llmgw/observability';
import { redisPool } from '@llmgw/service';
import { waitUntil } from '@llmgw/testing';
import { decodeLoad, encodeLoad, LoadShare, loadChannel } from './load-share';
import { decodeInsert, PrefixShare } from './share';
import { createPrefixMetrics } from './metrics';

const log = createLogger({ service: 'router', level: 'silent' });

describe('load share between routers (Redis pub/sub)', () => {
  it('encodes counts, leaves out idle replicas and refuses malformed messages', () => {
    const counts = new Map([
      ['r1', 3],
      ['r2', 0],
      ['r3', 1],
    ]);
    expect(decodeLoad(encodeLoad('o', counts))).toEqual({
      origin: 'o',
      counts: new Map([
        ['r1', 3],
        ['r3', 1],
      ]),
    });
    expect(decodeLoad(encode([2, 'o', [], []]))).toBeUndefined();
    expect(decodeLoad(encode([1, 'o', ['a'], []]))).toBeUndefined();
    expect(decodeLoad(encode([1, 'o', ['a'], [-1]]))).toBeUndefined();
    expect(decodeLoad(encode([1, 'o', ['a'], [1.5]]))).toBeUndefined();
    expect(decodeLoad(Buffer.from('not msgpack'))).toBeUndefined();
    // A load message on the tree's decoder is not an insert (the channels share one connection).
    expect(decodeInsert(encodeLoad('o', counts))).toBeUndefined();
    expect(loadChannel('llmgw:')).toBe('llmgw:load:v1:inflight');
  });

  it("each router sees the others' in-flight counts, not its own; a router that stops clears them; a silent one expires", async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const redis = redisPool(log);
    const clients = async () => ({
      publisher: await redis.connect('prefix share', 'redis://127.0.0.1:6379'),
      subscriber: await redis.connect('prefix share subscriber', 'redis://127.0.0.1:6379', { kind: 'subscriber' }),
    });
    let clock = 0;
    const localA = new Map<string, number>();
    const localB = new Map<string, number>();
    const ca = await clients();
    const cb = await clients();
    // The tree share on the same subscriber must ignore load messages.
    const tree = new PrefixShare({ ...cb, keyPrefix, log, apply: () => undefined });
    const a = new LoadShare({ ...ca, keyPrefix, origin: 'router-a', log, local: () => localA, now: () => clock, ttlMs: 3000 });
    const b = new LoadShare({ ...cb, keyPrefix, origin: 'router-b', log, local: () => localB, now: () => clock, ttlMs: 3000 });
    try {
      await Promise.all([a.open(), b.open(), tree.open()]);
      localA.set('r1', 2).set('r2', 1);
      a.changed();
      a.changed(); // coalesced with the first
      await waitUntil(() => b.peerInflight('r1') === 2, "router b sees a's 2 requests on r1", { timeoutMs: 10_000 });
      expect([b.peerInflight('r2'), b.peerInflight('r3'), a.peerInflight('r1')]).toEqual([1, 0, 0]);
      expect(a.stats.sent).toBe(1);

      localB.set('r1', 5);
      b.changed();
      await waitUntil(() => a.peerInflight('r1') === 5, "router a sees b's 5", { timeoutMs: 10_000 });

      // A message replaces the sender's previous one whole: r2 done on a.
      clock += 10;
      localA.set('r2', 0);
      a.changed();
      await waitUntil(() => b.peerInflight('r2') === 0, 'r2 back to 0 on b', { timeoutMs: 10_000 });
      expect(b.peerInflight('r1')).toBe(2);

      // b stops: it says so, and a forgets its counts.
      await b.close();
      await waitUntil(() => a.peerInflight('r1') === 0, 'b gone from a', { timeoutMs: 10_000 });

      // A sender that goes silent (crashed) is forgotten after the TTL.
      const c = new LoadShare({ ...(await clients()), keyPrefix, origin: 'router-c', log, local: () => new Map([['r9', 4]]), now: () => clock });
      await c.open();
      c.changed();
      await waitUntil(() => a.peerInflight('r9') === 4, "a sees c's 4 on r9", { timeoutMs: 10_000 });
      // What the metrics say meanwhile: one peer, its 4 requests, its message 1.5 s old.
      clock += 1500;
      const registry = createRegistry('router');
      createPrefixMetrics(registry, {
        kvStates: () => [],
        kvSequences: () => [],
        treeEntries: () => 0,
        shareStats: () => undefined,
        loadShare: () => a,
        tokenizer: () => undefined,
        spans: () => undefined,
      });
      const metric = async (name: string): Promise<number> => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await registry.metrics())?.[1]);
      expect(await registry.metrics()).toMatch(/^llmgw_prefix_load_share_messages_total\{direction="received",service="router"\} [1-9]/m);
      expect({
        peers: await metric('llmgw_prefix_load_share_peers\\{service="router"\\}'),
        inflight: await metric('llmgw_prefix_load_share_peer_inflight\\{service="router"\\}'),
        staleness: await metric('llmgw_prefix_load_share_staleness_seconds\\{service="router"\\}'),
      }).toEqual({ peers: 1, inflight: 4, staleness: 1.5 });
      clock += 1501;
      a.expire();
      expect(a.peerInflight('r9')).toBe(0);
      expect({ peers: a.peers, expired: await metric('llmgw_prefix_load_share_expired_total\\{service="router"\\}'), staleness: a.staleness() }).toEqual({
        peers: 0,
        expired: 1,
        staleness: 0,
      });
      expect(tree.stats.dropped).toBe(0);
      await c.close();
    } finally {
      await a.close();
      await b.close();
      await tree.close();
      await redis.close();
    }
  });
});
