import * as zmq from 'zeromq';
import { encode } from '@msgpack/msgpack';
import { KvBlockIndex } from '@llmgw/prefix';
import { createLogger } from '@llmgw/observability';
import type { EndpointInfo } from '@llmgw/endpoints';
import { KvSubscriber } from './kv-subscriber';
import { seqFrame } from './kv-wire';
import { waitUntil } from '@llmgw/testing';

const log = createLogger({ service: 'router', level: 'silent' });

/** A vLLM-shaped publisher under the test's control: real PUB and ROUTER sockets, batches dropped on demand. */
class FakeVllm {
  readonly pub = new zmq.XPublisher({ linger: 0 });
  readonly replay = new zmq.Router({ linger: 0 });
  readonly sent: Array<{ seq: number; payload: Uint8Array }> = [];
  replayRequests: number[] = [];
  answerReplays = true;
  endpoint = '';
  replayEndpoint = '';

  async start(): Promise<void> {
    await this.pub.bind('tcp://127.0.0.1:*');
    await this.replay.bind('tcp://127.0.0.1:*');
    this.endpoint = this.pub.lastEndpoint!;
    this.replayEndpoint = this.replay.lastEndpoint!;
    void (async () => {
      try {
        for await (const [id, , start] of this.replay) {
          const from = Number(start.readBigUInt64BE(0));
          this.replayRequests.push(from);
          if (!this.answerReplays) continue;
          // the pre-#45177 layout (no topic), to prove the subscriber reads it too
          for (const b of this.sent) if (b.seq >= from) await this.replay.send([id, Buffer.alloc(0), seqFrame(b.seq), b.payload]);
          await this.replay.send([id, Buffer.alloc(0), Buffer.from('ffffffffffffffff', 'hex'), Buffer.alloc(0)]);
        }
      } catch {
        // closed
      }
    })();
  }

  /** Waits for the subscriber's subscription to arrive (XPUB sees it), so nothing is lost to the slow join. */
  async subscribed(): Promise<void> {
    await this.pub.receive();
  }

  async batch(seq: number, events: unknown[], drop = false): Promise<void> {
    const payload = encode([Date.now() / 1000, events, 0], { useBigInt64: true });
    this.sent.push({ seq, payload });
    if (!drop) await this.pub.send([Buffer.from('kv@t@m'), seqFrame(seq), payload]);
  }

  close(): void {
    this.pub.close();
    this.replay.close();
  }
}

const stored = (...h: number[]) => ({
  type: 'BlockStored',
  block_hashes: h.map(BigInt),
  parent_block_hash: null,
  token_ids: [],
  block_size: 16,
  lora_id: null,
  medium: 'GPU',
  lora_name: null,
});
const endpoint = (f: FakeVllm, replay = true): EndpointInfo => ({
  id: 'r1',
  url: 'http://127.0.0.1:1',
  model: 'm',
  engine: 'vllm',
  pool: 'default',
  priority: 0,
  weight: 100,
  draining: false,
  kvEvents: { endpoint: f.endpoint, ...(replay ? { replayEndpoint: f.replayEndpoint } : {}) },
});

describe('KvSubscriber over real ZMQ sockets', () => {
  let f: FakeVllm;
  let sub: KvSubscriber;
  let index: KvBlockIndex;
  beforeEach(async () => {
    f = new FakeVllm();
    await f.start();
    index = new KvBlockIndex();
    // Long enough that an answering replay is never taken for a silent one on a loaded machine; the
    // tests of a silent replay wait this long for the drop.
    sub = new KvSubscriber({ index, log, replayTimeoutMs: 4000 });
  });
  afterEach(async () => {
    await sub.close();
    f.close();
  });

  it('joins through a replay at once, applies batches in order, replays a lost one, and keeps the index exact', async () => {
    await f.batch(0, [stored(1, 2)], true); // published before this router started
    sub.sync([endpoint(f)]);
    await f.subscribed();
    await waitUntil(() => index.state('r1') === 'synced', 'the join');
    expect(index.match([1n, 2n]).get('r1')).toBe(2); // known before any live batch
    await f.batch(1, [stored(3)], true); // lost on the wire
    await f.batch(2, [stored(4)]);
    await waitUntil(() => index.expected('r1') === 3 && index.state('r1') === 'synced', 'the replay');
    expect(f.replayRequests).toEqual([0, 1]);
    expect(index.match([1n, 2n, 3n, 4n]).get('r1')).toBe(4);
    expect(index.stats.replayed).toBe(3); // the join carries 0; the replay from 1 carries 1 and 2; the held copy of 2 is skipped
  }, 30_000);

  it('a replay that does not answer drops the replica until AllBlocksCleared', async () => {
    sub.sync([endpoint(f)]);
    await f.subscribed();
    await waitUntil(() => index.state('r1') === 'synced', 'the join');
    f.answerReplays = false;
    await f.batch(0, [stored(1)]);
    await waitUntil(() => index.state('r1') === 'synced', 'the first batch');
    await f.batch(1, [stored(2)], true);
    await f.batch(2, [stored(3)]);
    await waitUntil(() => index.state('r1') === 'dropped', 'the drop');
    expect(index.match([1n]).size).toBe(0);
    await f.batch(3, [{ type: 'AllBlocksCleared' }, stored(7)]);
    await waitUntil(() => index.state('r1') === 'synced', 'the clear');
    expect(index.match([7n]).get('r1')).toBe(1);
  }, 30_000);

  it('without a replay endpoint a gap drops the replica at once; a restarted engine (seq 0) resets it', async () => {
    sub.sync([endpoint(f, false)]);
    await f.subscribed();
    await f.batch(0, [stored(1)]);
    await waitUntil(() => index.state('r1') === 'synced', 'the first batch');
    await f.batch(5, [stored(2)]);
    await waitUntil(() => index.state('r1') === 'dropped', 'the drop');
    await f.batch(0, [stored(9)]);
    await waitUntil(() => index.state('r1') === 'synced', 'the restart');
    expect(index.match([9n]).get('r1')).toBe(1);
    expect(index.stats.restarts).toBe(1);
  }, 30_000);

  it('a join whose replay does not answer drops the replica until AllBlocksCleared', async () => {
    f.answerReplays = false;
    sub.sync([endpoint(f)]);
    await waitUntil(() => index.state('r1') === 'dropped', 'the failed join');
    await f.subscribed();
    await f.batch(0, [stored(1)]);
    await f.batch(1, [{ type: 'AllBlocksCleared' }, stored(7)]);
    await waitUntil(() => index.state('r1') === 'synced', 'the clear');
    expect(index.match([7n]).get('r1')).toBe(1);
    expect(index.match([1n]).size).toBe(0);
  }, 30_000);

  it('a dropped replica joins again by itself once the replay answers', async () => {
    await sub.close();
    sub = new KvSubscriber({ index, log, replayTimeoutMs: 500, rejoinDelayMs: 200 });
    f.answerReplays = false;
    await f.batch(0, [stored(1, 2)], true);
    sub.sync([endpoint(f)]);
    await waitUntil(() => index.state('r1') === 'dropped', 'the failed join');
    f.answerReplays = true;
    await waitUntil(() => index.state('r1') === 'synced', 'the second join');
    expect(index.match([1n, 2n]).get('r1')).toBe(2);
  }, 30_000);

  it('an endpoint that leaves is unsubscribed and forgotten', async () => {
    sub.sync([endpoint(f)]);
    await f.subscribed();
    await f.batch(0, [stored(1)]);
    await waitUntil(() => index.state('r1') === 'synced', 'the first batch');
    sub.sync([]);
    expect(index.state('r1')).toBeUndefined();
  }, 30_000);
});
