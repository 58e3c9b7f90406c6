import { BoundedLoadRing, type BoundedLoadRingOptions } from './bounded-load-ring';

/**
 * One ring per scope (the router uses the model), holding at least the
 * current candidates. Because `BoundedLoadRing.pick` skips members whose load
 * is `undefined`, a ring over a superset places keys exactly as a ring over
 * the candidates would; so a retry's smaller candidate set, a cooldown or a
 * drain never rebuild anything. A ring is built only when a candidate is new
 * to its scope, or when departed members outnumber the live ones enough to
 * slow the walk (more than 2 × candidates + 4 members).
 */
export class RingSet {
  private readonly rings = new Map<string, BoundedLoadRing>();
  /** Rings built so far (tests, stats). */
  builds = 0;

  constructor(
    private readonly ringOptions: BoundedLoadRingOptions = {},
    private readonly maxScopes = 1024,
  ) {}

  get(scope: string, ids: readonly string[]): BoundedLoadRing {
    const ring = this.rings.get(scope);
    const tooBig = (size: number): boolean => size > 2 * ids.length + 4;
    if (ring !== undefined && !tooBig(ring.size) && ids.every((id) => ring.has(id))) return ring;

    let members: readonly string[] = ids;
    if (ring !== undefined) {
      const union = [...new Set([...ring.members, ...ids])];
      if (!tooBig(union.length)) members = union;
    }
    const next = new BoundedLoadRing(members, this.ringOptions);
    this.builds++;
    this.rings.delete(scope);
    if (this.rings.size >= this.maxScopes) {
      const oldest = this.rings.keys().next();
      if (!oldest.done) this.rings.delete(oldest.value);
    }
    this.rings.set(scope, next);
    return next;
  }
}
