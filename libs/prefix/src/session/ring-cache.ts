import { hash32 } from '../hash';
import { BoundedLoadRing, type BoundedLoadRingOptions } from './bounded-load-ring';

/**
 * Rings keyed by membership, so a decision never builds a ring unless the
 * candidate set is new: candidate sets recur (the full set, the set minus one
 * replica during a retry or a cooldown) and each keeps its ring.
 *
 * The key is an order-independent digest of the member ids; a digest hit is
 * confirmed with `sameMembers`, so a collision costs a rebuild, never a wrong ring.
 */
export class RingCache {
  private readonly rings = new Map<number, BoundedLoadRing>();
  private readonly idHashes = new Map<string, number>();

  constructor(
    private readonly maxRings = 32,
    private readonly ringOptions: BoundedLoadRingOptions = {},
  ) {}

  /** Rings built so far (for tests and stats). */
  builds = 0;

  get(ids: readonly string[]): BoundedLoadRing {
    const key = this.digest(ids);
    let ring = this.rings.get(key);
    if (ring && ring.sameMembers(ids)) return ring;
    ring = new BoundedLoadRing(ids, this.ringOptions);
    this.builds++;
    this.rings.delete(key);
    if (this.rings.size >= this.maxRings) {
      const oldest = this.rings.keys().next();
      if (!oldest.done) this.rings.delete(oldest.value);
    }
    this.rings.set(key, ring);
    return ring;
  }

  private digest(ids: readonly string[]): number {
    let sum = 0;
    let xor = 0;
    for (const id of ids) {
      let h = this.idHashes.get(id);
      if (h === undefined) {
        if (this.idHashes.size > 100_000) this.idHashes.clear();
        h = hash32(id);
        this.idHashes.set(id, h);
      }
      sum = (sum + h) >>> 0;
      xor = (xor ^ Math.imul(h, 0x9e3779b1)) >>> 0;
    }
    // 32 bits of sum, 20 bits of xor and the count folded in: exact below 2^53.
    return (sum * 0x100000 + ((xor ^ ids.length) & 0xfffff));
  }
}
