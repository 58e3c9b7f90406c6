import { ApproxTreeSet, type ApproxInsert, type ApproxTreeSetOptions } from './approx-tree/tree-set';
import { KvBlockIndex, type KvIndexOptions } from './kv-index/kv-index';

/**
 * What the router knows of a request's prompt for prefix lookups. `text` is
 * the prompt as the client sent it, rendered the same way every time (tier 1);
 * `blockHashes` are vLLM's block hashes of the tokenized prompt (tier 2),
 * present only for models whose replicas publish KV events.
 */
export interface PromptKey {
  readonly text: string;
  readonly blockHashes?: readonly bigint[];
}

/** Prefix matches for one request. */
export interface PrefixLookup {
  /** Fraction of the prompt each replica holds, in [0, 1]; replicas holding nothing are absent. */
  ratios: Map<string, number>;
  /** Replicas whose ratio came from the precise index (tier 2); the rest are tier 1 estimates. */
  precise: Set<string>;
}

export interface PrefixIndexOptions {
  tree?: ApproxTreeSetOptions;
  kv?: KvIndexOptions;
  /** Clock for the tree's LRU and eviction, ms. */
  now?: () => number;
  /**
   * For replicas the precise index answers for: a prompt sent there less than
   * this long ago (ms) counts as held even before the engine's BlockStored
   * event arrives (the prefill has not finished, or the event is on its way).
   * 0 = only what the events say.
   */
  pendingMs?: number;
}

/**
 * Tiers 1 and 2 behind one lookup. For each replica the precise index
 * answers when it is usable for that replica and the prompt carries block
 * hashes; otherwise the approximate tree does (docs/prefix.md: a replica whose
 * events were lost falls back to tier 1). Every routing decision is recorded
 * in the tree, also for tier-2 models, so the fallback is warm when needed.
 *
 * `onInsert` sees every local insert (the router shares them with the other
 * router replicas); `applyRemote` inserts what another router shared without
 * echoing it.
 */
export class PrefixIndex {
  readonly trees: ApproxTreeSet;
  readonly kv: KvBlockIndex;
  onInsert?: (ins: ApproxInsert) => void;
  private readonly now: () => number;
  private readonly pendingMs: number;
  private readonly memo = new WeakMap<PromptKey, number[]>();

  constructor(opts: PrefixIndexOptions = {}) {
    this.trees = new ApproxTreeSet(opts.tree);
    this.kv = new KvBlockIndex(opts.kv);
    this.now = opts.now ?? Date.now;
    this.pendingMs = opts.pendingMs ?? 0;
  }

  /** The prompt's chunk hashes, computed once per PromptKey. */
  chunks(prompt: PromptKey): number[] {
    let h = this.memo.get(prompt);
    if (!h) {
      h = this.trees.hashes(prompt.text);
      this.memo.set(prompt, h);
    }
    return h;
  }

  /** Matches for a prompt; undefined when neither tier knows anything useful for it (`no_tree`). */
  lookup(model: string, prompt: PromptKey): PrefixLookup | undefined {
    const chunks = this.chunks(prompt);
    const approx = chunks.length > 0 ? this.trees.match(model, chunks) : undefined;
    const blocks = prompt.blockHashes;
    const kvMatch = blocks && blocks.length > 0 ? this.kv.match(blocks) : undefined;
    if (!approx && !kvMatch) return undefined;
    const precise = new Set<string>();
    if (!kvMatch) {
      // Tier 1 answers for everyone: its match map becomes the ratios, in place.
      const ratios = approx!.matched;
      for (const [id, n] of ratios) ratios.set(id, n / approx!.chunks);
      return { ratios, precise };
    }
    const ratios = new Map<string, number>();
    if (approx) {
      for (const [id, n] of approx.matched) if (!this.kv.usable(id)) ratios.set(id, n / approx.chunks);
    }
    for (const [id, n] of kvMatch) {
      ratios.set(id, n / blocks!.length);
      precise.add(id);
    }
    // Sent there within the pending window: the engine is computing it (or its event is in flight).
    const pending = this.pendingMs > 0 && chunks.length > 0 ? this.trees.matchSince(model, chunks, this.now() - this.pendingMs) : undefined;
    if (pending) {
      for (const [id, n] of pending.matched) {
        if (!this.kv.usable(id)) continue;
        const r = n / pending.chunks;
        if (r > (ratios.get(id) ?? 0)) ratios.set(id, r);
        precise.add(id);
      }
    }
    return { ratios, precise };
  }

  /** The request was sent to `replica`: the tree now expects its prefix there. */
  record(model: string, prompt: PromptKey, replica: string): void {
    const hashes = this.chunks(prompt);
    if (hashes.length === 0) return;
    this.trees.insert(model, hashes, replica, this.now());
    this.onInsert?.({ model, tenant: replica, hashes });
  }

  /** Another router sent a prompt with these chunk hashes to `replica`. */
  applyRemote(ins: ApproxInsert): void {
    if (ins.hashes.length > 0) this.trees.insert(ins.model, ins.hashes, ins.tenant, this.now());
  }

  /** A replica left: forget it in both tiers. */
  removeReplica(replica: string): void {
    this.trees.removeTenant(replica);
    this.kv.remove(replica);
  }
}
