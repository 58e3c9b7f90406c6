import type { Redis } from 'ioredis';
import { CAPACITY_CLASSES, quotaKey, type QuotaRule } from '@llmgw/placement';

/**
 * Operator quota overrides (`ctl quota set`), kept outside the scheduler so
 * a restart or a standby keeps them: in Redis, `<prefix>placement:quotas`,
 * HASH "scope/name/class" → {"scope","name","capacityClass"?,"guaranteeGpus","limitGpus"?}
 * JSON; or in this process (`memory`, one instance). The catalog's quotas
 * are the base; an override replaces the one with the same scope, name and class.
 */
export interface QuotaStore {
  load(): Promise<QuotaRule[]>;
  /** undefined removes the override of that scope, name and class. */
  set(id: Pick<QuotaRule, 'scope' | 'name' | 'capacityClass'>, rule: QuotaRule | undefined): Promise<void>;
}

/** A stored entry as a rule, or undefined when it is not one (a malformed entry is ignored; the next set overwrites it). */
function ruleOf(json: string): QuotaRule | undefined {
  try {
    const r = JSON.parse(json) as Partial<QuotaRule>;
    const count = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0;
    if (r.scope !== 'org' && r.scope !== 'team' && r.scope !== 'project') return undefined;
    if (typeof r.name !== 'string' || !r.name || !count(r.guaranteeGpus)) return undefined;
    if (r.limitGpus !== undefined && !count(r.limitGpus)) return undefined;
    if (r.capacityClass !== undefined && !CAPACITY_CLASSES.includes(r.capacityClass)) return undefined;
    return {
      scope: r.scope,
      name: r.name,
      guaranteeGpus: r.guaranteeGpus!,
      ...(r.limitGpus !== undefined ? { limitGpus: r.limitGpus } : {}),
      ...(r.capacityClass ? { capacityClass: r.capacityClass } : {}),
    };
  } catch {
    return undefined;
  }
}

export class RedisQuotaStore implements QuotaStore {
  private readonly key: string;
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}placement:quotas`;
  }

  async load(): Promise<QuotaRule[]> {
    const raw = await this.redis.hgetall(this.key);
    return Object.values(raw)
      .map(ruleOf)
      .filter((r): r is QuotaRule => !!r);
  }

  async set(id: Pick<QuotaRule, 'scope' | 'name' | 'capacityClass'>, rule: QuotaRule | undefined): Promise<void> {
    if (rule) await this.redis.hset(this.key, quotaKey(id), JSON.stringify(rule));
    else await this.redis.hdel(this.key, quotaKey(id));
  }
}

/** The in-process twin (the single-machine mode). */
export class MemoryQuotaStore implements QuotaStore {
  private readonly rules = new Map<string, string>();

  async load(): Promise<QuotaRule[]> {
    return [...this.rules.values()].map(ruleOf).filter((r): r is QuotaRule => !!r);
  }

  async set(id: Pick<QuotaRule, 'scope' | 'name' | 'capacityClass'>, rule: QuotaRule | undefined): Promise<void> {
    if (rule) this.rules.set(quotaKey(id), JSON.stringify(rule));
    else this.rules.delete(quotaKey(id));
  }
}
