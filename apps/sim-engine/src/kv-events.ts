/**
 * KV-cache events in vLLM's shape (fixtures/kv_events/README.md, the map form
 * used since vLLM PR #42892). sim-engine emits them in process; a ZMQ
 * publisher (msgpack `[ts, events, dp_rank]` on topic `kv@<host>@<model>`)
 * can subscribe to `KvEventBus` and forward each batch unchanged.
 */

export interface BlockStored {
  type: 'BlockStored';
  /** Chained block hashes, in sequence order. */
  block_hashes: number[];
  /** Hash of the block before the first one; null at the start of a sequence. */
  parent_block_hash: number | null;
  /** Concatenated token ids of all the blocks in this event. */
  token_ids: number[];
  block_size: number;
  lora_id: number | null;
  medium: 'GPU';
  lora_name: string | null;
}

export interface BlockRemoved {
  type: 'BlockRemoved';
  block_hashes: number[];
  medium: 'GPU';
}

export interface AllBlocksCleared {
  type: 'AllBlocksCleared';
}

export type KvEvent = BlockStored | BlockRemoved | AllBlocksCleared;

/** One engine step's events, as vLLM batches them. `seq` counts batches from 0. */
export interface KvEventBatch {
  seq: number;
  /** Unix seconds. */
  ts: number;
  events: KvEvent[];
  data_parallel_rank: number;
}

export type KvEventListener = (batch: KvEventBatch) => void;

/**
 * Collects events during an engine step and delivers them as one batch at its
 * end. Does no work at all while nobody listens.
 */
export class KvEventBus {
  private readonly listeners = new Set<KvEventListener>();
  private pending: KvEvent[] = [];
  private seq = 0;

  get hasSubscribers(): boolean {
    return this.listeners.size > 0;
  }

  subscribe(fn: KvEventListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  push(ev: KvEvent): void {
    if (this.listeners.size > 0) this.pending.push(ev);
  }

  /** Delivers the pending events as one batch (nothing when there are none). */
  flush(): void {
    if (this.pending.length === 0) return;
    const batch: KvEventBatch = { seq: this.seq++, ts: Date.now() / 1000, events: this.pending, data_parallel_rank: 0 };
    this.pending = [];
    for (const fn of this.listeners) {
      try {
        fn(batch);
      } catch {
        // a faulty subscriber must not stop the engine loop
      }
    }
  }
}
