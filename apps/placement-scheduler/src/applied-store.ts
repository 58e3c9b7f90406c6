import type { Redis } from 'ioredis';
import type { AppliedCapacity, AppliedProfileCapacity } from '@llmgw/placement';

/**
 * Capacity applied from measured profiles (`ctl capacity apply`,
 * docs/capacity.md "Applying a profile"), kept outside the scheduler so a
 * restart or a standby keeps it: in Redis, `<prefix>placement:capacity`,
 * HASH model → {"profiles":[{"profile","weight","targetWaitingPerReplica",
 * "maxConcurrencyAtSlo","gpuClass"}],"targetWaitingPerReplica","appliedAtMs","appliedBy"}
 * JSON; or in this process (`memory`, one instance).
 */
export interface AppliedCapacityStore {
  load(): Promise<Map<string, AppliedCapacity>>;
  /** undefined removes the model's entry. */
  set(model: string, a: AppliedCapacity | undefined): Promise<void>;
}

const positive = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

/** A stored entry as applied capacity, or undefined when it is not one (ignored; the next set overwrites it). */
export function appliedOf(json: string): AppliedCapacity | undefined {
  try {
    const a = JSON.parse(json) as Partial<AppliedCapacity>;
    if (!Array.isArray(a.profiles) || !positive(a.targetWaitingPerReplica)) return undefined;
    const profiles: AppliedProfileCapacity[] = [];
    for (const p of a.profiles as Array<Partial<AppliedProfileCapacity>>) {
      if (typeof p.profile !== 'string' || !p.profile || !positive(p.weight) || !positive(p.targetWaitingPerReplica)) return undefined;
      profiles.push({
        profile: p.profile,
        weight: p.weight,
        targetWaitingPerReplica: p.targetWaitingPerReplica,
        maxConcurrencyAtSlo: Number(p.maxConcurrencyAtSlo) || 0,
        gpuClass: typeof p.gpuClass === 'string' ? p.gpuClass : '',
      });
    }
    return {
      profiles,
      targetWaitingPerReplica: a.targetWaitingPerReplica,
      appliedAtMs: Number(a.appliedAtMs) || 0,
      appliedBy: typeof a.appliedBy === 'string' ? a.appliedBy : '',
    };
  } catch {
    return undefined;
  }
}

function loadAll(entries: Iterable<[string, string]>): Map<string, AppliedCapacity> {
  const out = new Map<string, AppliedCapacity>();
  for (const [m, json] of entries) {
    const a = appliedOf(json);
    if (a) out.set(m, a);
  }
  return out;
}

export class RedisAppliedCapacityStore implements AppliedCapacityStore {
  private readonly key: string;
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}placement:capacity`;
  }

  async load(): Promise<Map<string, AppliedCapacity>> {
    return loadAll(Object.entries(await this.redis.hgetall(this.key)));
  }

  async set(model: string, a: AppliedCapacity | undefined): Promise<void> {
    if (a) await this.redis.hset(this.key, model, JSON.stringify(a));
    else await this.redis.hdel(this.key, model);
  }
}

/** The in-process twin (the single-machine mode). */
export class MemoryAppliedCapacityStore implements AppliedCapacityStore {
  private readonly entries = new Map<string, string>();

  async load(): Promise<Map<string, AppliedCapacity>> {
    return loadAll(this.entries);
  }

  async set(model: string, a: AppliedCapacity | undefined): Promise<void> {
    if (a) this.entries.set(model, JSON.stringify(a));
    else this.entries.delete(model);
  }
}
