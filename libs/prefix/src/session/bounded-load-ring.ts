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
 * affinity (docs/scheduling.md#session-affinity-tier-0-in-detail).
 *
 * Membership is fixed at construction; a decision over a subset of the
 * members passes `undefined` loads for the others (see `pick`), so a new ring
 * is needed only when a new member appears. Each member owns `virtualNodes` points at `hash32("<id>#<v>")`,
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

    // Points sorted as point × 2^16 + member (exact in a double): one native
    // numeric sort, and equal points order by member, i.e. by id, so the ring
    // is identical whatever order the members were given in.
    const n = unique.length * vnodes;
    const keyed = new Float64Array(n);
    for (let m = 0; m < unique.length; m++) {
      for (let v = 0; v < vnodes; v++) keyed[m * vnodes + v] = hash32(`${unique[m]}#${v}`) * 65536 + m;
    }
    keyed.sort();
    this.points = new Uint32Array(n);
    this.owners = new Uint16Array(n);
    for (let i = 0; i < n; i++) {
      const m = keyed[i] % 65536;
      this.owners[i] = m;
      this.points[i] = (keyed[i] - m) / 65536;
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
   * per call: the member's current requests (not counting this one), or
   * `undefined` when the member is not a candidate this time. Skipping
   * non-candidates gives exactly the placement of a ring built over the
   * candidates alone, so one ring serves every subset of its members.
   * Undefined when no member is a candidate. `minBound`: the bound is never
   * below it (a member holding fewer requests, this one counted, is never over).
   */
  pick(key: string, loadOf: (id: string) => number | undefined, loadFactor: number, minBound = 0): RingPick | undefined {
    if (!(loadFactor >= 1)) throw new RangeError(`loadFactor must be ≥ 1, got ${loadFactor}`);
    const size = this.members.length;
    let eligible = 0;
    let total = 0;
    for (let m = 0; m < size; m++) {
      const l = loadOf(this.members[m]);
      if (l === undefined) {
        this.loads[m] = Number.NaN;
        continue;
      }
      const v = Number.isFinite(l) && l > 0 ? l : 0;
      this.loads[m] = v;
      total += v;
      eligible++;
    }
    if (eligible === 0) return undefined;
    // `minBound`: at small loads ceil(1.25 × 2.1) = 3 already counts one request over the average
    // as overload; a floor keeps sessions home until the load is worth moving them for.
    const bound = Math.max(minBound, Math.ceil((loadFactor * (total + 1)) / eligible));

    if (++this.generation === 0xffffffff) {
      this.seen.fill(0);
      this.generation = 1;
    }
    const gen = this.generation;
    const start = this.locate(hash32(key));
    const n = this.points.length;
    let primary = -1;
    let skipped = 0;
    let visited = 0;
    for (let step = 0; step < n && visited < eligible; step++) {
      const m = this.owners[(start + step) % n];
      if (this.seen[m] === gen) continue;
      this.seen[m] = gen;
      if (Number.isNaN(this.loads[m])) continue;
      visited++;
      if (primary < 0) primary = m;
      if (this.loads[m] + 1 <= bound) {
        return { id: this.members[m], primary: this.members[primary], overflow: m !== primary, skipped };
      }
      skipped++;
    }
    // Unreachable with loadFactor ≥ 1 (the least loaded candidate fits); kept so
    // an inconsistent loadOf can never leave a key unplaced.
    let best = -1;
    for (let m = 0; m < size; m++) {
      if (!Number.isNaN(this.loads[m]) && (best < 0 || this.loads[m] < this.loads[best])) best = m;
    }
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
