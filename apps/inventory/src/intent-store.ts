import type { inventoryV1 } from '@llmgw/contracts';
import type { Redis } from 'ioredis';

/** Operator intent on one node, as persisted. */
export interface NodeIntentRecord {
  intent: Exclude<inventoryV1.NodeIntent__Output, 'NODE_INTENT_UNSPECIFIED'>;
  reason: string;
  sinceMs: number;
  /** Who set it: the operator identity the ControlService resolved (certificate CN, else `--actor`). */
  actor: string;
  /** With DRAINING: each replica's drain timeout, ms (`ctl drain --replica-timeout`); 0 = the scheduler's default. */
  drainTimeoutMs?: number;
}

/**
 * Where cordon/drain intent survives inventory restarts (docs/inventory.md#what-it-keeps-and-where-from:
 * node state stays out of any database — but intent is the operator's, not the
 * fleet's, and nothing else could rebuild it).
 */
export interface IntentStore {
  get(nodeId: string): Promise<NodeIntentRecord | undefined>;
  /** Sets or (undefined) clears the node's intent. */
  set(nodeId: string, rec: NodeIntentRecord | undefined): Promise<void>;
  all(): Promise<Map<string, NodeIntentRecord>>;
}

/** In-process intents: survive nothing; the single-process default without Redis. */
export class MemoryIntentStore implements IntentStore {
  private readonly m = new Map<string, NodeIntentRecord>();
  async get(nodeId: string) {
    return this.m.get(nodeId);
  }
  async set(nodeId: string, rec: NodeIntentRecord | undefined) {
    if (rec) this.m.set(nodeId, rec);
    else this.m.delete(nodeId);
  }
  async all() {
    return new Map(this.m);
  }
}

/** `<prefix>inventory:intent` HASH node_id → JSON NodeIntentRecord. */
export class RedisIntentStore implements IntentStore {
  private readonly key: string;
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}inventory:intent`;
  }
  async get(nodeId: string) {
    const v = await this.redis.hget(this.key, nodeId);
    return v ? parseIntent(v) : undefined;
  }
  async set(nodeId: string, rec: NodeIntentRecord | undefined) {
    if (rec) await this.redis.hset(this.key, nodeId, JSON.stringify(rec));
    else await this.redis.hdel(this.key, nodeId);
  }
  async all() {
    const out = new Map<string, NodeIntentRecord>();
    for (const [k, v] of Object.entries(await this.redis.hgetall(this.key))) {
      const r = parseIntent(v);
      if (r) out.set(k, r);
    }
    return out;
  }
}

function parseIntent(json: string): NodeIntentRecord | undefined {
  try {
    const o = JSON.parse(json) as Partial<NodeIntentRecord>;
    if (o.intent !== 'NODE_INTENT_CORDONED' && o.intent !== 'NODE_INTENT_DRAINING') return undefined;
    const t = Number(o.drainTimeoutMs ?? 0);
    return {
      intent: o.intent,
      reason: String(o.reason ?? ''),
      sinceMs: Number(o.sinceMs ?? 0),
      actor: String(o.actor ?? ''),
      ...(t > 0 ? { drainTimeoutMs: t } : {}),
    };
  } catch {
    return undefined;
  }
}
