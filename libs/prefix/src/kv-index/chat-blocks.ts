import { BlockHasher, blockHashes, eventHashOf, type BlockHashOptions } from './block-hash';
import {
  chatHeadMessages,
  isLlama3Direct,
  llama3ChatHeadTokens,
  llama3GenerationPrompt,
  llama3MessageSpan,
  preloadLlama3,
  type ChatMessageLike,
} from './llama3';

/**
 * Where a message prefix's hash chain stands: the event hashes of its full
 * blocks (`added` after `parent`'s), the raw hash the next block chains from,
 * and the tokens after the last full block.
 */
interface ChainState {
  readonly parent: ChainState | undefined;
  readonly added: readonly bigint[];
  /** Blocks from the start: parent's count + added.length. */
  readonly count: number;
  readonly raw: Uint8Array;
  readonly tail: readonly number[];
}

/**
 * Block hashes of chat requests, incrementally (docs/prefix.md, cost): a
 * conversation's next turn repeats every earlier message, so the chain state
 * after a request's messages is kept, keyed by those messages' span-cache
 * uids (`llama3MessageSpan`), and the next turn hashes only the blocks its
 * new messages complete. Equal to `blockHashes(llama3ChatHeadTokens(messages,
 * maxChars), opts)`, which it falls back to when the template is not Llama
 * 3's own. LRU-bounded: `maxStates` states, each holding only the hashes it
 * added (a state's ancestors live while it does).
 */
export class ChatBlockHasher {
  private readonly hasher: BlockHasher;
  private readonly states = new Map<string, ChainState>();
  /** Requests whose chain started from a kept state / from the first message. */
  readonly stats = { resumed: 0, fresh: 0 };

  constructor(
    readonly opts: BlockHashOptions,
    readonly maxStates = 4096,
  ) {
    this.hasher = new BlockHasher(opts);
  }

  /** The event hashes of the head of `messages` that fits in `maxChars` (with the generation prompt when all of it fits). */
  hashes(messages: readonly ChatMessageLike[], maxChars: number): bigint[] {
    preloadLlama3();
    if (!isLlama3Direct()) return blockHashes(llama3ChatHeadTokens(messages, maxChars), this.opts);
    const k = chatHeadMessages(messages, maxChars);
    if (k === 0) return [];
    const spans = new Array<readonly number[]>(k);
    const keys = new Array<string>(k);
    let key = '';
    for (let i = 0; i < k; i++) {
      const span = llama3MessageSpan(messages[i], i);
      spans[i] = span.ids;
      key = i === 0 ? String(span.uid) : `${key},${span.uid}`;
      keys[i] = key;
    }
    // The longest run of leading messages a kept state covers.
    let from = k;
    let state: ChainState | undefined;
    while (from > 0 && !(state = this.states.get(keys[from - 1]))) from--;
    if (state) {
      this.stats.resumed++;
      this.states.delete(keys[from - 1]); // refreshed below, unless this request ends where it did
      this.states.set(keys[from - 1], state);
    } else this.stats.fresh++;
    let tokens: number[] = state ? [...state.tail] : [];
    let parent: Uint8Array = state ? state.raw : this.hasher.root;
    for (let i = from; i < k; i++) for (const id of spans[i]) tokens.push(id);
    const added: bigint[] = [];
    let used = 0;
    const bs = this.hasher.blockSize;
    for (; used + bs <= tokens.length; used += bs) {
      parent = this.hasher.block(parent, tokens, used);
      added.push(eventHashOf(parent));
    }
    if (from < k) {
      const next: ChainState = { parent: state, added, count: (state?.count ?? 0) + added.length, raw: parent, tail: tokens.slice(used) };
      this.keep(keys[k - 1], next);
      state = next;
    }
    const out = materialize(state!);
    if (k < messages.length) return out;
    // The whole conversation fits: the generation prompt completes the last blocks (not kept: the next turn replaces it).
    tokens = [...state!.tail, ...llama3GenerationPrompt()];
    parent = state!.raw;
    for (let at = 0; at + bs <= tokens.length; at += bs) {
      parent = this.hasher.block(parent, tokens, at);
      out.push(eventHashOf(parent));
    }
    return out;
  }

  private keep(key: string, s: ChainState): void {
    this.states.delete(key);
    if (this.states.size >= this.maxStates) this.states.delete(this.states.keys().next().value as string);
    this.states.set(key, s);
  }
}

/** Every block hash of a state, from the first. */
function materialize(s: ChainState): bigint[] {
  const out = new Array<bigint>(s.count);
  for (let at: ChainState | undefined = s; at; at = at.parent) {
    const base = at.count - at.added.length;
    for (let i = 0; i < at.added.length; i++) out[base + i] = at.added[i];
  }
  return out;
}
