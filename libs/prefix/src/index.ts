export { hash32, fmix32, mulberry32 } from './hash';
// Tier 0: session affinity.
export { BoundedLoadRing, type BoundedLoadRingOptions, type RingPick } from './session/bounded-load-ring';
export { RingSet } from './session/ring-set';
// Tier 1: approximate prefix tree over character chunks.
export { chunkHashes, DEFAULT_CHUNK_CHARS } from './approx-tree/chunk-hash';
export { ApproxTree, type ApproxMatch } from './approx-tree/approx-tree';
export { ApproxTreeSet, type ApproxTreeSetOptions, type ApproxInsert } from './approx-tree/tree-set';
// Tier 2: precise KV block index from engine events, and vLLM's block hashes.
export { blockHashes, rawBlockHashes, eventHashOf, noneHash, cbor, BlockHasher, type BlockHashOptions } from './kv-index/block-hash';
export { ChatBlockHasher } from './kv-index/chat-blocks';
export { KvBlockIndex, type KvEvent, type KvBatch, type OfferResult, type ReplicaSyncState, type KvIndexOptions } from './kv-index/kv-index';
// Both tiers behind one lookup (what the prefix scorer reads).
export { PrefixIndex, type PromptKey, type PrefixLookup, type PrefixIndexOptions } from './prefix-index';
export {
  llama3ChatTokens,
  llama3TextTokens,
  llama3ChatHeadTokens,
  llama3MessageSpan,
  llama3SpanStats,
  llama3GenerationPrompt,
  chatHeadMessages,
  llama3TextHeadTokens,
  preloadLlama3,
  isLlama3Loaded,
  isLlama3Direct,
  setLlama3Direct,
  contentText,
  type ChatMessageLike,
  type SpanTokens,
} from './kv-index/llama3';
