export { hash32, fmix32 } from './hash';
// Tier 0: session affinity.
export { BoundedLoadRing, type BoundedLoadRingOptions, type RingPick } from './session/bounded-load-ring';
export { RingSet } from './session/ring-set';
// Tier 1 (approximate radix tree) and tier 2 (KV block index) will live in
// ./approx-tree and ./kv-index beside ./session, each behind its own export.
