import { hash32 } from '../hash';

/** Result of a bounded-load lookup. */
export interface RingPick {
  /** The member chosen. */
  id: string;
  /** The member the key hashes to when load is ignored. */
  primary: string;
  /** True when `primary` was over its bound and the walk moved on. */
  overflow: boolean;
  /** Distinct members passed over before `id` (0 when `id === primary`). */
  skipped: number;
}

export interface BoundedLoadRingOptions {
  /** Virtual nodes per member (default 160): more = smoother spread, slower build. */
  virtualNodes?: number;
}

/**
 * Consistent hash ring with bounded loads (Mirrokni, Thorup, Zadimoghaddam,
 * "Consistent Hashing with Bounded Loads", 2016), the tier-0 session
 * affinity of plan §7.5.
 *
 * Membership is fixed at construction: build a new ring when it changes (see
 * `RingCache`). Each member owns `virtualNodes` points at `hash32("<id>#<v>")`,
 * which depend on the id alone, so adding or removing one member moves only
 * the keys that member gains or loses (≈ 1/N of them).
 *
 * `pick` walks clockwise from the key's point and takes the first member whose
 * load after taking this request stays within
 * `ceil(loadFactor × (totalLoad + 1) / N)`. With `loadFactor ≥ 1` the least
 * loaded member always satisfies the bound, so the walk always ends.
 */
export class BoundedLoadRing {
  readonly members: readonly string[];
  private readonly index = new Map<string, number>();
  private readonly points: Uint32Array;
  private readonly owners: Uint16Array;
  private readonly loads: Float64Array;
  private readonly seen: Uint32Array;
  private generation = 0;

  constructor(members: readonly string[], options: BoundedLoadRingOptions = {}) {
    const vnodes = options.virtualNodes ?? 160;
    if (!Number.isInteger(vnodes) || vnodes < 1 || vnodes > 4096) {
      throw new RangeError(`virtualNodes must be an integer in 1..4096, got ${vnodes}`);
    }
    const unique = [...new Set(members)].sort();
    if (unique.length > 0xffff) throw new RangeError('a ring holds at most 65535 members');
    this.members = unique;
    unique.forEach((id, i) => this.index.set(id, i));

    const n = unique.length * vnodes;
    const pos = new Uint32Array(n);
    const own = new Uint16Array(n);
    for (let m = 0; m < unique.length; m++) {
      for (let v = 0; v < vnodes; v++) {
        pos[m * vnodes + v] = hash32(`${unique[m]}#${v}`);
        own[m * vnodes + v] = m;
      }
    }
    // Ties (same point for two members) resolve by member order, i.e. by id,
    // so the ring is identical whatever order members were given in.
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => pos[a] - pos[b] || own[a] - own[b]);
    this.points = new Uint32Array(n);
    this.owners = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      this.points[i] = pos[order[i]];
      this.owners[i] = own[order[i]];
    }
    this.loads = new Float64Array(unique.length);
    this.seen = new Uint32Array(unique.length);
  }

  get size(): number {
    return this.members.length;
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  /** True when the ring's members are exactly `ids` (any order, no duplicates expected). */
  sameMembers(ids: readonly string[]): boolean {
    if (ids.length !== this.members.length) return false;
    for (const id of ids) if (!this.index.has(id)) return false;
    return true;
  }

  /** The member a key maps to, ignoring load. */
  owner(key: string): string | undefined {
    if (this.members.length === 0) return undefined;
    return this.members[this.owners[this.locate(hash32(key))]];
  }

  /**
   * The member for `key` under bounded load. `loadOf` is read once per member
   * per call (current requests on that member, not counting this one).
   */
  pick(key: string, loadOf: (id: string) => number, loadFactor: number): RingPick | undefined {
    const count = this.members.length;
    if (count === 0) return undefined;
    if (!(loadFactor >= 1)) throw new RangeError(`loadFactor must be ≥ 1, got ${loadFactor}`);
    let total = 0;
    for (let m = 0; m < count; m++) {
      const l = loadOf(this.members[m]);
      const v = Number.isFinite(l) && l > 0 ? l : 0;
      this.loads[m] = v;
      total += v;
    }
    const bound = Math.ceil((loadFactor * (total + 1)) / count);

    if (++this.generation === 0xffffffff) {
      this.seen.fill(0);
      this.generation = 1;
    }
    const gen = this.generation;
    const start = this.locate(hash32(key));
    const primary = this.owners[start];
    let skipped = 0;
    const n = this.points.length;
    for (let step = 0; step < n && skipped < count; step++) {
      const m = this.owners[(start + step) % n];
      if (this.seen[m] === gen) continue;
      this.seen[m] = gen;
      if (this.loads[m] + 1 <= bound) {
        return { id: this.members[m], primary: this.members[primary], overflow: m !== primary, skipped };
      }
      skipped++;
    }
    // Unreachable with loadFactor ≥ 1 (the least loaded member fits); kept so a
    // caller's inconsistent loadOf can never leave a key unplaced.
    let best = 0;
    for (let m = 1; m < count; m++) if (this.loads[m] < this.loads[best]) best = m;
    return { id: this.members[best], primary: this.members[primary], overflow: best !== primary, skipped };
  }

  /** Index of the first point ≥ h, wrapping to 0. */
  private locate(h: number): number {
    const p = this.points;
    let lo = 0;
    let hi = p.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (p[mid] < h) lo = mid + 1;
      else hi = mid;
    }
    return lo === p.length ? 0 : lo;
  }
}
