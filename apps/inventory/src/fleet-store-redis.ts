import type { FleetNode } from '@llmgw/inventory-rpc';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { FleetMirror, numberEvents, type EventBody, type FleetStore, type Mutation } from './fleet-store';

/**
 * Redis layout of the shared fleet (docs/inventory.md), under `<prefix>inventory:`:
 * - `nodes` HASH node_id → JSON of the node record (inventory.v1.Node)
 * - `versions` HASH node_id → record version (optimistic concurrency)
 * - `rev` counter of the last event revision; `epoch` the sequence's id
 * - `events` STREAM, one entry per commit: node, v, rev (last), epoch, rec (record JSON, '' = removed), ev (JSON array of event bodies), at
 */
export function fleetKeys(prefix: string) {
  const p = `${prefix}inventory:`;
  return { nodes: `${p}nodes`, versions: `${p}versions`, rev: `${p}rev`, epoch: `${p}epoch`, events: `${p}events` };
}

/** JSON replacer: an engine secret (ShardSpec.api_key) is never written to Redis, whatever reached the record. */
const noSecrets = (k: string, v: unknown) => (k === 'apiKey' ? undefined : v);

const COMMIT = `
local v = tonumber(redis.call('HGET', KEYS[5], ARGV[1]) or '0')
if v ~= tonumber(ARGV[2]) then return {0, v, 0, ''} end
local n = tonumber(ARGV[5])
local rev = redis.call('INCRBY', KEYS[2], n)
local epoch = redis.call('GET', KEYS[4])
if not epoch then epoch = ARGV[7]; redis.call('SET', KEYS[4], epoch) end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1]); redis.call('HDEL', KEYS[5], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]); redis.call('HSET', KEYS[5], ARGV[1], v + 1)
end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], '*', 'node', ARGV[1], 'v', v + 1, 'rev', rev, 'epoch', epoch, 'rec', ARGV[3], 'ev', ARGV[4], 'at', ARGV[8])
return {1, v + 1, rev, epoch}
`;

export interface RedisFleetStoreOptions {
  /** Commands (and the commit script). */
  redis: Redis;
  /** A second connection for the blocking stream reads. */
  reader: Redis;
  keyPrefix: string;
  /** Events kept in this instance's memory for resumed watches, and in the Redis stream. */
  historySize?: number;
  clock?: () => number;
  log?: { warn(o: object, m: string): void };
}

/**
 * The fleet shared by several inventory instances through Redis. Every
 * change is one atomic script (version check, record, revision, stream
 * entry); every instance — the writer included — applies the stream in
 * order, so all of them serve the same revisions and the same events, and a
 * watch may resume on any instance that still holds the revision.
 */
export class RedisFleetStore extends FleetMirror implements FleetStore {
  readonly mirror: FleetMirror = this;
  private readonly keys: ReturnType<typeof fleetKeys>;
  private lastId = '0-0';
  private closed = false;
  private loop?: Promise<void>;
  private readonly waiters: Array<{ rev: number; resolve: () => void }> = [];
  private readonly clock: () => number;

  private constructor(private readonly o: RedisFleetStoreOptions) {
    super(o.historySize ?? 10_000, '');
    this.keys = fleetKeys(o.keyPrefix);
    this.clock = o.clock ?? Date.now;
  }

  /** Loads the shared state and starts following the event stream. */
  static async open(o: RedisFleetStoreOptions): Promise<RedisFleetStore> {
    const s = new RedisFleetStore(o);
    await s.init();
    return s;
  }

  private async init(): Promise<void> {
    const r = this.o.redis;
    await r.set(this.keys.epoch, randomBytes(6).toString('hex'), 'NX');
    const res = await r
      .multi()
      .hgetall(this.keys.nodes)
      .hgetall(this.keys.versions)
      .get(this.keys.rev)
      .get(this.keys.epoch)
      .xrevrange(this.keys.events, '+', '-', 'COUNT', 1)
      .exec();
    if (!res) throw new Error('fleet store: MULTI aborted');
    for (const [err] of res) if (err) throw err;
    const nodes = res[0][1] as Record<string, string>;
    const versions = res[1][1] as Record<string, string>;
    const last = res[4][1] as Array<[string, string[]]>;
    this.lastId = last.length ? last[0][0] : '0-0';
    const records = Object.entries(nodes).map(([id, json]) => ({ node: JSON.parse(json) as FleetNode, version: Number(versions[id] ?? 0) }));
    this.load(records, Number(res[2][1] ?? 0), String(res[3][1] ?? ''));
    this.loop = this.follow();
  }

  private async follow(): Promise<void> {
    while (!this.closed) {
      let res: Array<[string, Array<[string, string[]]>]> | null;
      try {
        res = (await this.o.reader.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', this.keys.events, this.lastId)) as any;
      } catch (e) {
        if (this.closed) return;
        this.o.log?.warn({ err: (e as Error).message }, 'fleet store: reading the event stream failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (!res) continue;
      for (const [, entries] of res)
        for (const [id, fields] of entries) {
          this.lastId = id;
          this.applyEntry(fields);
        }
      this.wake();
    }
  }

  private applyEntry(fields: string[]): void {
    const f: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
    const bodies = JSON.parse(f.ev) as EventBody[];
    const rev = Number(f.rev);
    if (f.epoch !== this.epoch) {
      // The shared state was created anew (Redis flushed): nothing older is comparable.
      this.epoch = f.epoch;
    }
    this.applyCommit({
      nodeId: f.node,
      node: f.rec ? (JSON.parse(f.rec) as FleetNode) : null,
      version: Number(f.v),
      events: numberEvents(bodies, rev - bodies.length, f.epoch, Number(f.at)),
    });
  }

  private wake(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].rev <= this.revision) {
        this.waiters[i].resolve();
        this.waiters.splice(i, 1);
      }
    }
  }

  private applied(rev: number): Promise<void> {
    if (rev <= this.revision) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ rev, resolve }));
  }

  async update(nodeId: string, fn: (cur: FleetNode | undefined) => Mutation | null): Promise<boolean> {
    let cur = this.get(nodeId);
    let version = this.versionOf(nodeId);
    for (let attempt = 0; attempt < 20; attempt++) {
      const m = fn(cur);
      if (!m) return false;
      const res = (await this.o.redis.eval(
        COMMIT,
        5,
        this.keys.nodes,
        this.keys.rev,
        this.keys.events,
        this.keys.epoch,
        this.keys.versions,
        nodeId,
        version,
        m.node ? JSON.stringify(m.node, noSecrets) : '',
        JSON.stringify(m.events, noSecrets),
        m.events.length,
        this.o.historySize ?? 10_000,
        randomBytes(6).toString('hex'),
        this.clock(),
      )) as [number, number, number, string];
      if (res[0] === 1) {
        await this.applied(res[2]);
        return true;
      }
      const [json, v] = await this.o.redis
        .multi()
        .hget(this.keys.nodes, nodeId)
        .hget(this.keys.versions, nodeId)
        .exec()
        .then((r) => [r![0][1] as string | null, r![1][1] as string | null]);
      cur = json ? (JSON.parse(json) as FleetNode) : undefined;
      version = Number(v ?? 0);
    }
    throw new Error(`fleet store: node ${nodeId} changed concurrently 20 times in a row`);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.o.reader.disconnect();
    await this.loop?.catch(() => undefined);
    for (const w of this.waiters.splice(0)) w.resolve();
  }
}
