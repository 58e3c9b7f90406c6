import * as zmq from 'zeromq';
import { encode } from '@msgpack/msgpack';
import { eventHashOf, noneHash, rawBlockHashes } from '@llmgw/prefix';
import type { Logger } from '@llmgw/observability';
import type { KvEvent, KvEventBatch, KvEventBus } from './kv-events';

export interface KvPublisherOptions {
  /** PUB endpoint to bind, e.g. `tcp://*:5557`; port 0 or `*` picks a free one. */
  endpoint: string;
  /** ROUTER endpoint for replays; none when absent. */
  replayEndpoint?: string;
  topic: string;
  bufferSteps: number;
  blockSize: number;
  hashSeed: string;
  log: Logger;
}

/** A batch as it goes on the wire: vLLM's map-form events with uint64 block hashes. */
interface WireBatch {
  seq: number;
  payload: Uint8Array;
}

/**
 * Publishes the engine's KV events the way vLLM does with `--kv-events-config`
 * (fixtures/kv_events/README.md): a PUB socket sending `[topic, seq (8-byte
 * big-endian), msgpack([ts, events, dp_rank])]` per engine step, the events in
 * the map form (vLLM ≥ PR #42892) with block hashes computed by vLLM's
 * chained sha256_cbor rule from the prompt's token ids; and a ROUTER socket
 * answering `[b"", start_seq]` with every buffered batch from start_seq on as
 * `[b"", topic, seq, payload]`, then the end marker seq = -1.
 *
 * The engine keys its prefix cache by its own fast 53-bit hashes; this
 * publisher maps each to the vLLM hash of the same block (computed once, when
 * the block is stored, chained from its parent's), so subscribers see exactly
 * what a vLLM engine with the same tokens would publish.
 */
export class KvPublisher {
  private readonly pub = new zmq.Publisher({ linger: 0 });
  private readonly replay?: zmq.Router;
  private readonly buffer: WireBatch[] = [];
  private readonly vllm = new Map<number, Buffer>();
  private readonly topic: Buffer;
  private unsubscribe?: () => void;
  /** Batches waiting for the PUB socket, oldest first; `sending` while one send is in flight. */
  private readonly outbox: Uint8Array[][] = [];
  private sending = false;
  private dropNextCount = 0;
  private closed = false;
  /** Bound addresses (ports resolved). */
  endpoint = '';
  replayEndpoint?: string;

  private constructor(private readonly opts: KvPublisherOptions) {
    this.topic = Buffer.from(opts.topic, 'utf8');
    if (opts.replayEndpoint) this.replay = new zmq.Router({ linger: 0 });
  }

  static async start(bus: KvEventBus, opts: KvPublisherOptions): Promise<KvPublisher> {
    const p = new KvPublisher(opts);
    const bindable = (e: string): string => e.replace(/:0$/, ':*');
    await p.pub.bind(bindable(opts.endpoint));
    p.endpoint = p.pub.lastEndpoint ?? opts.endpoint;
    if (p.replay && opts.replayEndpoint) {
      await p.replay.bind(bindable(opts.replayEndpoint));
      p.replayEndpoint = p.replay.lastEndpoint ?? opts.replayEndpoint;
      void p.serveReplays();
    }
    p.unsubscribe = bus.subscribe((b) => p.onBatch(b));
    return p;
  }

  /** Test hook: the next `n` batches are buffered for replay but not sent, as if lost on the wire. */
  dropNext(n = 1): void {
    this.dropNextCount += n;
  }

  private onBatch(b: KvEventBatch): void {
    if (this.closed) return;
    const events: Record<string, unknown>[] = [];
    for (const ev of b.events) {
      const w = this.translate(ev);
      if (w) events.push(w);
    }
    const payload = encode([b.ts, events, b.data_parallel_rank], { useBigInt64: true });
    const wb: WireBatch = { seq: b.seq, payload };
    this.buffer.push(wb);
    if (this.buffer.length > this.opts.bufferSteps) this.buffer.shift();
    if (this.dropNextCount > 0) {
      this.dropNextCount--;
      return;
    }
    this.outbox.push([this.topic, seqFrame(b.seq), payload]);
    // Past the buffer, a subscriber could not replay what it missed anyway; dropping the oldest
    // here shows it as a gap in seq, as a dropped message on the wire would.
    if (this.outbox.length > this.opts.bufferSteps) this.outbox.shift();
    if (!this.sending) void this.drain();
  }

  /**
   * Sends the outbox in order, one send at a time. zeromq.js allows one send in flight per socket:
   * after 512 sends it resolves without waiting it defers the next to the event loop's next turn,
   * and a send called meanwhile throws EBUSY, which would lose a batch whenever an engine step
   * emitted two at once.
   */
  private async drain(): Promise<void> {
    this.sending = true;
    try {
      for (let frames = this.outbox.shift(); frames && !this.closed; frames = this.outbox.shift()) {
        try {
          await this.pub.send(frames);
        } catch (e) {
          this.opts.log.debug({ err: (e as Error).message }, 'kv events: send failed');
        }
      }
    } finally {
      this.sending = false;
    }
  }

  private translate(ev: KvEvent): Record<string, unknown> | undefined {
    if (ev.type === 'AllBlocksCleared') return { type: 'AllBlocksCleared' };
    if (ev.type === 'BlockRemoved') {
      const hashes: bigint[] = [];
      for (const h of ev.block_hashes) {
        const raw = this.vllm.get(h);
        if (!raw) continue;
        this.vllm.delete(h);
        hashes.push(eventHashOf(raw));
      }
      return hashes.length > 0 ? { type: 'BlockRemoved', block_hashes: hashes, medium: ev.medium } : undefined;
    }
    const parentRaw = ev.parent_block_hash === null ? noneHash(this.opts.hashSeed) : this.vllm.get(ev.parent_block_hash);
    if (!parentRaw) {
      this.opts.log.warn({ parent: ev.parent_block_hash }, 'kv events: stored blocks whose parent was never published; not published');
      return undefined;
    }
    const raws = rawBlockHashes(ev.token_ids, { blockSize: ev.block_size, hashSeed: this.opts.hashSeed }, parentRaw);
    ev.block_hashes.forEach((h, i) => this.vllm.set(h, raws[i]));
    return {
      type: 'BlockStored',
      block_hashes: raws.map(eventHashOf),
      parent_block_hash: ev.parent_block_hash === null ? null : eventHashOf(parentRaw),
      token_ids: ev.token_ids,
      block_size: ev.block_size,
      lora_id: ev.lora_id,
      medium: ev.medium,
      lora_name: ev.lora_name,
    };
  }

  private async serveReplays(): Promise<void> {
    const r = this.replay!;
    try {
      for await (const frames of r) {
        const [id, ...rest] = frames;
        const body = rest[0]?.byteLength === 0 ? rest.slice(1) : rest;
        if (body.length < 1 || body[0].byteLength !== 8) continue;
        const start = Number(Buffer.from(body[0]).readBigUInt64BE(0));
        for (const b of this.buffer) if (b.seq >= start) await r.send([id, Buffer.alloc(0), this.topic, seqFrame(b.seq), b.payload]);
        await r.send([id, Buffer.alloc(0), this.topic, Buffer.from('ffffffffffffffff', 'hex'), Buffer.alloc(0)]);
      }
    } catch (e) {
      if (!this.closed) this.opts.log.warn({ err: (e as Error).message }, 'kv events: replay socket failed');
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    this.pub.close();
    this.replay?.close();
  }
}

function seqFrame(seq: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(seq));
  return b;
}
