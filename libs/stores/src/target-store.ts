import type { Redis } from 'ioredis';

/** An operator's replica target for one model (`llmgw ctl model target`). */
export type Target = { min: number; max: number };

/**
 * Operator targets, kept outside the placement-scheduler so a restart or a
 * standby keeps them. In Redis (`RedisTargetStore`, `<prefix>placement:targets`,
 * HASH model → {"min","max"} JSON) or in process (`MemoryTargetStore`); one
 * contract suite runs against both (target-store.spec.ts).
 */
export interface TargetStore {
  /** Every valid target (a malformed stored one is skipped). */
  load(): Promise<Map<string, Target>>;
  /** Sets `model`'s target; undefined removes it. */
  set(model: string, t: Target | undefined): Promise<void>;
}

function valid(t: Partial<Target> | undefined): t is Target {
  return !!t && Number.isInteger(t.min) && Number.isInteger(t.max) && t.min! >= 0 && t.max! >= t.min!;
}

export class RedisTargetStore implements TargetStore {
  private readonly key: string;
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}placement:targets`;
  }

  async load(): Promise<Map<string, Target>> {
    const raw = await this.redis.hgetall(this.key);
    const out = new Map<string, Target>();
    for (const [m, json] of Object.entries(raw)) {
      try {
        const t = JSON.parse(json) as Partial<Target>;
        if (valid(t)) out.set(m, { min: t.min, max: t.max });
      } catch {
        // A malformed entry is ignored; the next set overwrites it.
      }
    }
    return out;
  }

  async set(model: string, t: Target | undefined): Promise<void> {
    if (t) await this.redis.hset(this.key, model, JSON.stringify(t));
    else await this.redis.hdel(this.key, model);
  }
}

/** The in-process target store: the single-machine mode, same contract as Redis. */
export class MemoryTargetStore implements TargetStore {
  private readonly targets = new Map<string, Target>();

  async load(): Promise<Map<string, Target>> {
    return new Map([...this.targets].map(([m, t]) => [m, { ...t }] as [string, Target]));
  }

  async set(model: string, t: Target | undefined): Promise<void> {
    if (t && valid(t)) this.targets.set(model, { min: t.min, max: t.max });
    else this.targets.delete(model);
  }
}
