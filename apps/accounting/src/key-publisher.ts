import type { ApiKeyRow, Database } from '@llmgw/db';
import type { Logger } from '@llmgw/observability';
import { type KeyCacheBus, type KeyCacheInvalidation, type PublishedKey, type PublishedKeys, activeKeyRecord, revokedKeyRecord } from '@llmgw/stores';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import { Counter, type Registry } from 'prom-client';
import type { KeyChain, TenancyStore } from './tenancy-store';

export interface KeyPublisherOptions {
  log: Logger;
  registry: Registry;
  /** Keys read and written per round trip (backfill and a scope's republish). */
  batchSize?: number;
  /** Longest a tenancy change waits for its key's record before answering (the write still lands later). */
  writeTimeoutMs?: number;
}

/**
 * Publishes every API key's record (hash, scope ids, band, profile, resolved
 * limits; never the secret) to the published-key store, so routers can
 * verify keys while accounting or its database cannot answer
 * (docs/accounting.md, "When accounting is unreachable"). Hooked into the
 * tenancy store through its key-cache bus: each invalidation republishes the
 * keys of the changed scope (a revoked key becomes a tombstone), and a
 * backfill at start publishes every key in batches.
 */
export class KeyPublisher {
  private tenancy?: TenancyStore;
  private readonly batchSize: number;
  private readonly writeTimeoutMs: number;
  private readonly written: Counter<'result'>;
  /** Republishes of wide scopes, one after another in arrival order. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly store: PublishedKeys,
    private readonly o: KeyPublisherOptions,
  ) {
    this.batchSize = Math.max(1, o.batchSize ?? 500);
    this.writeTimeoutMs = o.writeTimeoutMs ?? 2_000;
    this.written = new Counter({
      name: 'llmgw_key_records_published_total',
      help: 'Published key records by result (written, kept: a tombstone or newer record was there, failed: the store was unreachable).',
      labelNames: ['result'],
      registers: [o.registry],
    });
  }

  /** The tenancy store whose keys are published (it resolves their limits). */
  attach(tenancy: TenancyStore): void {
    this.tenancy = tenancy;
  }

  /**
   * `inner` plus this publisher: a key's record is written before its
   * invalidation goes out (a revocation is a tombstone before any router
   * re-resolves); a wider scope's records after it, in the background.
   */
  wrap(inner: KeyCacheBus): KeyCacheBus {
    return {
      publish: async (ev) => {
        if (ev.scopeType === 'key') await this.bounded(this.publishScope(ev));
        await inner.publish(ev);
        if (ev.scopeType !== 'key') this.enqueue(() => this.publishScope(ev));
      },
      subscribe: (h) => inner.subscribe(h),
      close: () => inner.close(),
    };
  }

  /** Publishes every key (active ones and tombstones of revoked ones); resolves with how many records were written. */
  backfill(): Promise<number> {
    return this.publishWhere((q) => q);
  }

  /** Runs `backfill()` in the background, logging its outcome. */
  startBackfill(): void {
    const began = Date.now();
    this.enqueue(async () => {
      const n = await this.backfill();
      this.o.log.info({ written: n, ms: Date.now() - began }, 'published key records backfilled');
    });
  }

  /** Stops the backfill after its current batch and waits for queued republishes, at most `writeTimeoutMs` (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.queue.catch(() => undefined), new Promise<void>((r) => (timer = setTimeout(r, this.writeTimeoutMs)))]);
    clearTimeout(timer);
  }

  /** Republishes the keys under one scope; `all` is every key. */
  async publishScope(ev: KeyCacheInvalidation): Promise<number> {
    const id = ev.scopeId;
    switch (ev.scopeType) {
      case 'all':
        return this.backfill();
      case 'key':
        return this.publishWhere((q) => q.where('api_keys.id', '=', id));
      case 'project':
        return this.publishWhere((q) => q.where('api_keys.project_id', '=', id));
      case 'team':
        return this.publishWhere((q) => q.where('api_keys.project_id', 'in', this.db.selectFrom('projects').select('id').where('team_id', '=', id)));
      case 'org':
        return this.publishWhere((q) =>
          q.where(
            'api_keys.project_id',
            'in',
            this.db.selectFrom('projects').innerJoin('teams', 'teams.id', 'projects.team_id').select('projects.id').where('teams.org_id', '=', id),
          ),
        );
    }
  }

  private enqueue(fn: () => Promise<unknown>): void {
    this.queue = this.queue
      .then(fn)
      .catch((e) => this.o.log.warn({ err: (e as Error).message }, 'publishing key records failed; routers keep the previous records'));
  }

  /** A key's record may not hold up its change for long: past the timeout the change answers and the write lands when it can. */
  private async bounded(p: Promise<number>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.o.log.warn({ timeoutMs: this.writeTimeoutMs }, 'publishing a key record is slow; answering without waiting for it');
        resolve();
      }, this.writeTimeoutMs);
    });
    const done = p.then(
      () => undefined,
      (e) => this.o.log.warn({ err: (e as Error).message }, 'publishing a key record failed; routers keep the previous record'),
    );
    await Promise.race([done, late]);
    clearTimeout(timer);
  }

  /** Publishes the keys `filter` selects, `batchSize` at a time in id order. */
  private async publishWhere(filter: (q: KeyQuery) => KeyQuery): Promise<number> {
    const tenancy = this.tenancy;
    if (!tenancy) throw new Error('KeyPublisher: attach(tenancy) first');
    let after = '';
    let total = 0;
    for (;;) {
      if (this.closed) break;
      // Read before the rows: a record carries the time its state was read (`rev`).
      const rev = Date.now();
      const keys = await filter(this.db.selectFrom('api_keys').selectAll())
        .where('api_keys.id', '>', after)
        .orderBy('api_keys.id')
        .limit(this.batchSize)
        .execute();
      if (!keys.length) break;
      after = keys[keys.length - 1].id;
      const records = await this.recordsOf(tenancy, keys, rev);
      try {
        const n = await this.store.put(records);
        this.written.inc({ result: 'written' }, n);
        this.written.inc({ result: 'kept' }, records.length - n);
        total += n;
      } catch (e) {
        this.written.inc({ result: 'failed' }, records.length);
        throw e;
      }
      if (keys.length < this.batchSize) break;
    }
    return total;
  }

  /** The records of a batch of keys: their chains in three queries, each principal as ResolveKey answers it. */
  private async recordsOf(tenancy: TenancyStore, keys: ApiKeyRow[], rev: number): Promise<PublishedKey[]> {
    const out: PublishedKey[] = [];
    const live = keys.filter((k) => k.revoked_at === null);
    for (const k of keys) if (k.revoked_at !== null) out.push(revokedKeyRecord(k.key_hash, k.id, rev));
    if (!live.length) return out;
    const projects = await this.db
      .selectFrom('projects')
      .selectAll()
      .where('id', 'in', [...new Set(live.map((k) => k.project_id))])
      .execute();
    const teams = projects.length
      ? await this.db
          .selectFrom('teams')
          .selectAll()
          .where('id', 'in', [...new Set(projects.map((p) => p.team_id))])
          .execute()
      : [];
    const orgs = teams.length
      ? await this.db
          .selectFrom('organizations')
          .selectAll()
          .where('id', 'in', [...new Set(teams.map((t) => t.org_id))])
          .execute()
      : [];
    for (const key of live) {
      const project = projects.find((p) => p.id === key.project_id);
      const team = project && teams.find((t) => t.id === project.team_id);
      const org = team && orgs.find((o) => o.id === team.org_id);
      if (!project || !team || !org) continue;
      const chain: KeyChain = { key, project, team, org };
      out.push(activeKeyRecord(key.key_hash, await tenancy.principalOf(chain), rev));
    }
    return out;
  }
}

type KeyQuery = SelectQueryBuilder<Database, 'api_keys', ApiKeyRow>;
