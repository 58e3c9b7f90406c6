import type * as Zmq from 'zeromq';
import type { EndpointInfo } from '@llmgw/endpoints';
import type { KvBatch, KvBlockIndex } from '@llmgw/prefix';
import type { Logger } from '@llmgw/observability';
import { decodeBatch, REPLAY_END, seqFrame, seqOf } from './kv-wire';

/**
 * zeromq (a native addon with libzmq inside) loads when the first replica with a KV socket
 * appears, not with the router: most routers never follow KV events, and its code and the
 * library's pages would be part of every router's idle memory (docs/performance.md,
 * "Memory per stream").
 */
let zmqModule: typeof Zmq | undefined;
function zmq(): typeof Zmq {
  return (zmqModule ??= require('zeromq') as typeof Zmq);
}

export interface KvSubscriberOptions {
  index: KvBlockIndex;
  log: Logger;
  replayTimeoutMs: number;
  /** How long a dropped replica waits before joining again (default 5 s). */
  rejoinDelayMs?: number;
  /** Called after every replica state change (metrics). */
  onChange?(): void;
}

interface Conn {
  key: string;
  sub: Zmq.Subscriber;
  replaying: boolean;
  closed: boolean;
}

/**
 * One ZMQ SUB per KV-publishing replica (tier 2, docs/prefix.md). Batches go to
 * the index in arrival order; when the index reports a gap, the missing range
 * is fetched from the replica's replay socket (a DEALER, one request at a
 * time per replica) and a timeout or a missing socket drops the replica's
 * index, which then answers with tier 1 until its view is exact again.
 * Every router subscribes on its own, so each holds the full view.
 */
export class KvSubscriber {
  private readonly conns = new Map<string, Conn>();
  private readonly replayAt = new Map<string, string | undefined>();

  constructor(private readonly opts: KvSubscriberOptions) {}

  /** Subscribes to the endpoints that name a KV socket and are not yet subscribed; drops the others. */
  sync(endpoints: readonly EndpointInfo[]): void {
    const want = new Map<string, EndpointInfo>();
    for (const e of endpoints) if (e.kvEvents) want.set(e.id, e);
    for (const [id, c] of this.conns) {
      const e = want.get(id);
      if (!e || c.key !== keyOf(e)) {
        this.closeConn(c);
        this.conns.delete(id);
        this.opts.index.remove(id);
      }
    }
    for (const [id, e] of want) {
      if (this.conns.has(id)) continue;
      const sub = new (zmq().Subscriber)();
      sub.connect(e.kvEvents!.endpoint);
      sub.subscribe();
      const c: Conn = { key: keyOf(e), sub, replaying: false, closed: false };
      this.conns.set(id, c);
      this.replayAt.set(id, e.kvEvents!.replayEndpoint);
      void this.run(id, c);
      // Learn what the engine holds now rather than at its next event.
      if (e.kvEvents!.replayEndpoint && this.opts.index.join(id)) void this.replay(id, c, 0);
    }
    this.opts.onChange?.();
  }

  private async run(id: string, c: Conn): Promise<void> {
    try {
      for await (const frames of c.sub) {
        if (c.closed) break;
        const [, seqF, payload] = frames;
        let batch: KvBatch;
        try {
          batch = decodeBatch(seqOf(seqF), payload);
        } catch (e) {
          this.opts.log.warn({ replica: id, err: (e as Error).message }, 'kv events: undecodable batch, treated as lost');
          continue; // the next batch shows the gap and replays it
        }
        const r = this.opts.index.offer(id, batch);
        if (r.kind === 'gap') void this.replay(id, c, r.from);
        if (r.kind !== 'applied' && r.kind !== 'held') this.opts.onChange?.();
      }
    } catch (e) {
      if (!c.closed) this.opts.log.warn({ replica: id, err: (e as Error).message }, 'kv events: subscriber failed');
    }
  }

  private async replay(id: string, c: Conn, from: number): Promise<void> {
    if (c.replaying) return;
    c.replaying = true;
    const at = this.replayAt.get(id);
    const log = this.opts.log;
    try {
      if (!at) throw new Error('no replay endpoint');
      const batches = await fetchReplay(at, from, this.opts.replayTimeoutMs);
      if (c.closed) return;
      const state = this.opts.index.replayed(id, batches);
      log.info({ replica: id, from, batches: batches.length, state }, 'kv events: replayed a gap');
      if (state === 'dropped') this.rejoinLater(id, c);
    } catch (e) {
      if (c.closed) return;
      this.opts.index.replayFailed(id);
      log.warn({ replica: id, from, err: (e as Error).message }, 'kv events: replay failed; tier 1 answers for this replica until its view is exact again');
      this.rejoinLater(id, c);
    } finally {
      c.replaying = false;
      this.opts.onChange?.();
    }
  }

  /**
   * A dropped replica joins again after a while (a replay of everything the
   * engine still buffers), unless an AllBlocksCleared or a restart made it
   * exact meanwhile: a replay that timed out once under load does not leave
   * it on tier 1 for good.
   */
  private rejoinLater(id: string, c: Conn): void {
    if (!this.replayAt.get(id)) return;
    const t = setTimeout(() => {
      if (c.closed || this.opts.index.state(id) !== 'dropped') return;
      if (this.opts.index.join(id)) void this.replay(id, c, 0);
    }, this.opts.rejoinDelayMs ?? 5000);
    t.unref();
  }

  private closeConn(c: Conn): void {
    c.closed = true;
    c.sub.close();
  }

  async close(): Promise<void> {
    for (const c of this.conns.values()) this.closeConn(c);
    this.conns.clear();
  }
}

function keyOf(e: EndpointInfo): string {
  return `${e.kvEvents?.endpoint}|${e.kvEvents?.replayEndpoint ?? ''}`;
}

/** Asks a replay ROUTER for every buffered batch from `from` on; resolves at the end marker. */
export async function fetchReplay(endpoint: string, from: number, timeoutMs: number): Promise<KvBatch[]> {
  // zeromq.js arms receiveTimeout against libuv's cached loop time; after a long synchronous stretch
  // (a tokenizer load, say) that time is stale and the timeout would fire at once. A timer turn refreshes it.
  await new Promise((r) => setTimeout(r, 0));
  const d = new (zmq().Dealer)({ receiveTimeout: timeoutMs, sendTimeout: timeoutMs, linger: 0 });
  try {
    d.connect(endpoint);
    await d.send([Buffer.alloc(0), seqFrame(from)]);
    const out: KvBatch[] = [];
    for (;;) {
      const frames = await d.receive();
      // [b"", seq, payload] before vLLM PR #45177, [b"", topic, seq, payload] after.
      const f = frames[0].byteLength === 0 ? frames.slice(1) : frames;
      const [seqF, payload] = f.length >= 3 ? [f[1], f[2]] : [f[0], f[1]];
      const seq = seqOf(seqF);
      if (seq === REPLAY_END) return out;
      out.push(decodeBatch(seq, payload));
    }
  } finally {
    d.close();
  }
}
