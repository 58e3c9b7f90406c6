/**
 * The whole tenancy path across processes: two real routers, accounting,
 * a sim-engine, Redis and a fresh Postgres database.
 */
import type { AccountingMethod } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import { createTestDatabase } from '@llmgw/db/testing';
import {
  TenancyAdmin,
  backOffAfterRefusal,
  dropKeyPrefix,
  ledgerDrained as drained,
  startAccountingProcess,
  startTenancyRouters,
  type SpawnedRole,
  spawnRole,
  waitUntil,
  writeTenancyRouterConfig,
} from '@llmgw/testing';
import { periodBounds } from '@llmgw/tenancy';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

jest.setTimeout(120_000);

const prefix = `test:${randomUUID()}:`;
const dir = mkdtempSync(join(tmpdir(), 'llmgw-acct-'));

let db: { url: string; drop(): Promise<void> };
let redis: Redis;
let sim: SpawnedRole;
let acct: SpawnedRole;
let acctPort: number;
const routers: SpawnedRole[] = [];
let tenancy: TenancyAdmin;

async function startAccounting(): Promise<SpawnedRole> {
  const a = await startAccountingProcess({
    databaseUrl: db.url,
    keyPrefix: prefix,
    consumer: 'acct-1',
    port: acctPort,
    args: ['--config', join(dir, 'accounting.yaml')],
  });
  acctPort = Number(new URL(a.urls.grpc).port);
  return a;
}

const admin = <T>(m: AccountingMethod, req: object) => tenancy.call<T>(m, req);
const newKey = (name: string, limit?: object) => tenancy.newKey(name, limit);

async function chat(
  router: SpawnedRole,
  key: string,
  requestId = randomUUID(),
  maxTokens = 8,
): Promise<{ status: number; id: string; retryAfter: string | null; body: any }> {
  const res = await fetch(`${router.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ model: 'm', max_tokens: maxTokens, messages: [{ role: 'user', content: 'hello there' }] }),
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, id: res.headers.get('x-request-id') ?? requestId, retryAfter: res.headers.get('retry-after'), body };
}

async function sql<T = any>(q: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query(q, params)).rows as T[];
  } finally {
    await c.end();
  }
}

const ledgerDrained = () => drained(redis, prefix);

beforeAll(async () => {
  db = await createTestDatabase();
  redis = new Redis({ host: '127.0.0.1', port: 6379 });
  writeFileSync(join(dir, 'accounting.yaml'), 'ingest:\n  claim_idle: 2s\nreseed_interval: 1h\n');
  [sim, acct] = await Promise.all([
    spawnRole('sim-engine', ['--port', '0', '--model', 'm', '--prefill-tps', '0', '--decode-tps', '400', '--log-level', 'info']),
    startAccounting(),
  ]);
  tenancy = await new TenancyAdmin(`127.0.0.1:${acctPort}`, 'integration-test').seedProject();
  const config = writeTenancyRouterConfig(join(dir, 'router.yaml'), {
    accountingAddress: `127.0.0.1:${acctPort}`,
    keyPrefix: prefix,
    tenancy: ['  prices:', '    m: { prompt_per_mtok: 1, completion_per_mtok: 1 }'],
  });
  routers.push(...(await startTenancyRouters(2, config, sim.url)));
}, 400_000);

afterAll(async () => {
  tenancy?.close();
  await Promise.all([...routers, acct, sim].filter(Boolean).map((p) => p.stop().catch(() => undefined)));
  await dropKeyPrefix(redis, prefix);
  await redis.quit();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('tenancy across two routers, accounting, Redis and Postgres', () => {
  it('authenticates: no key 401, a good key 200', async () => {
    const k = await newKey('basic');
    const none = await fetch(`${routers[0].url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"m","messages":[]}',
    });
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.code).toBe('missing_api_key');
    expect((await chat(routers[0], 'sk-llmgw-' + 'x'.repeat(43))).status).toBe(401);
    expect((await chat(routers[0], k.secret)).status).toBe(200);
    expect((await chat(routers[1], k.secret)).status).toBe(200);
    const me = await fetch(`${routers[1].url}/me`, { headers: { authorization: `Bearer ${k.secret}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ key_id: k.id, project_id: tenancy.projectId, team_id: tenancy.teamId, band: 'gold' });
  });

  it('a key limited to N rpm gets N (±1) accepted across both routers', async () => {
    const N = 12;
    const k = await newKey('rpm', { hasRpm: true, rpm: N });
    const results = await Promise.all(Array.from({ length: 3 * N }, (_, i) => chat(routers[i % 2], k.secret)));
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(N - 1);
    expect(ok).toBeLessThanOrEqual(N + 1);
    const refused = results.filter((r) => r.status === 429);
    expect(refused.length).toBe(results.length - ok);
    expect(refused[0].body.error.code).toBe('rate_limit_exceeded');
    expect(Number(refused[0].retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('a budget is never exceeded under concurrent requests on both routers', async () => {
    const B = 600;
    const k = await newKey('budget', { hasBudget: true, budgetMicros: B, budgetPeriod: 'day' });
    let ok = 0;
    let refused = 0;
    for (let wave = 0; wave < 5; wave++) {
      const rs = await Promise.all(Array.from({ length: 16 }, (_, i) => chat(routers[i % 2], k.secret)));
      ok += rs.filter((r) => r.status === 200).length;
      refused += rs.filter((r) => r.status === 429 && r.body.error.type === 'insufficient_quota').length;
    }
    expect(refused).toBeGreaterThan(0);
    expect(ok).toBeGreaterThan(0);
    await waitUntil(async () => (await sql(`select count(*)::int as n from usage where key_id = $1 and status = 200`, [k.id]))[0].n === ok, 'usage rows', {
      timeoutMs: 30_000,
      everyMs: 50,
    });
    const [{ spent }] = await sql(`select coalesce(sum(cost_micros), 0)::bigint as spent from usage where key_id = $1`, [k.id]);
    expect(Number(spent)).toBeGreaterThan(0);
    expect(Number(spent)).toBeLessThanOrEqual(B);
  });

  it('a revoked key is refused on every router by the invalidation, long before its cache entry expires', async () => {
    const k = await newKey('revoke-me');
    // Both routers now hold the key in their cache (cache_ttl is the default 5 min).
    expect((await chat(routers[0], k.secret)).status).toBe(200);
    expect((await chat(routers[1], k.secret)).status).toBe(200);
    await admin('RevokeKey', { ref: k.id });
    // Bounded far below cache_ttl, so only the pushed invalidation can explain a refusal;
    // how fast it lands is a latency figure for a benchmark, not for a test on a shared machine.
    for (const r of routers) {
      await waitUntil(async () => (await chat(r, k.secret)).status === 401, `router ${r.url} to refuse the revoked key`, { timeoutMs: 30_000, everyMs: 25 });
    }
  });

  it("a suspended person's keys and sessions are refused on every router (docs/portal.md)", async () => {
    const link = await tenancy.client.account<accountingV1.ClaimLinkCreated__Output>(
      'CreateClaimLink',
      { kind: 'invite', email: 'sus@example.com', name: 'Sus', project: tenancy.projectId },
      { actor: 'integration-test' },
    );
    await tenancy.client.account('Claim', { token: link.token, password: 'sus-password-1' });
    const s = await tenancy.client.account<accountingV1.SignInResponse__Output>('SignIn', {
      email: 'sus@example.com',
      password: 'sus-password-1',
      address: '10.0.0.1',
    });
    const k = await tenancy.client.account<accountingV1.CreatedKey__Output>('IssueKey', { token: s.token, name: 'sus-key' });
    for (const r of routers) expect((await chat(r, k.secret)).status).toBe(200);
    const at = Date.now();
    await tenancy.client.account('UpdateAccount', { ref: 'sus@example.com', action: 'suspend' }, { actor: 'integration-test' });
    await expect(tenancy.client.account('GetSession', { token: s.token })).rejects.toMatchObject({ code: 'LLMGW_ERR_SESSION_INVALID' });
    // The key is revoked on the same path as `ctl key revoke` (pushed invalidation); bounded far below cache_ttl.
    for (const r of routers) {
      await waitUntil(async () => (await chat(r, k.secret)).status === 401, `router ${r.url} to refuse the suspended person's key`, {
        timeoutMs: 30_000,
        everyMs: 25,
      });
    }
    process.stderr.write(`suspended person's key refused on both routers ${Date.now() - at} ms after the suspension\n`);
  });

  it('a restart keeps the budget spent (counters reseeded from Postgres)', async () => {
    const k = await newKey('reseed', { hasBudget: true, budgetMicros: 150, budgetPeriod: 'day' });
    for (let i = 0; i < 20; i++) {
      const r = await chat(routers[i % 2], k.secret);
      if (r.status === 429) break;
    }
    expect((await chat(routers[0], k.secret)).status).toBe(429);
    await waitUntil(ledgerDrained, 'the ledger to drain', { timeoutMs: 30_000, everyMs: 50 });
    await acct.stop('SIGTERM');
    // Lose every counter, as a Redis restart would.
    const counterKeys = await redis.keys(`${prefix}budget:*`);
    expect(counterKeys.length).toBeGreaterThan(0);
    await redis.del(...counterKeys);
    acct = await startAccounting();
    const [{ spent }] = await sql(`select coalesce(sum(cost_micros), 0)::bigint as spent from usage where key_id = $1`, [k.id]);
    const day = periodBounds('day', Date.now());
    expect(Number(await redis.get(`${prefix}budget:{key:${k.id}}:${day.start}`))).toBe(Number(spent));
    const after = await chat(routers[1], k.secret);
    expect(after.status).toBe(429);
    expect(after.body.error.type).toBe('insufficient_quota');
  });

  it('SIGKILL of a router and of accounting mid-load loses no usage record', async () => {
    const k = await newKey('load');
    const ok: string[] = [];
    let stop = false;
    const worker = async (r: SpawnedRole) => {
      while (!stop) {
        try {
          const res = await chat(r, k.secret, randomUUID(), 16);
          if (res.status === 200) ok.push(res.id);
        } catch {
          // the killed router: connection refused or reset
          await backOffAfterRefusal();
        }
      }
    };
    const workers = routers.flatMap((r) => Array.from({ length: 6 }, () => worker(r)));
    // Each phase lasts until requests have been served in it, however slow the machine.
    const served = (more: number, what: string) => {
      const target = ok.length + more;
      return waitUntil(() => ok.length >= target, `${more} more requests served ${what}`, { timeoutMs: 60_000, everyMs: 20 });
    };
    await served(30, 'before the kills');
    await routers[0].stop('SIGKILL');
    await served(10, 'by the surviving router');
    await acct.stop('SIGKILL');
    await served(10, 'with accounting dead');
    stop = true;
    await Promise.all(workers);
    acct = await startAccounting();
    await waitUntil(ledgerDrained, 'the ledger to drain after the restart', { timeoutMs: 60_000, everyMs: 50 });
    const rows = await sql<{ request_id: string; n: number }>(
      `select request_id, count(*)::int as n from usage where request_id = any($1) group by request_id`,
      [ok],
    );
    const byId = new Map(rows.map((r) => [r.request_id, r.n]));
    const missing = ok.filter((id) => !byId.has(id));
    expect(missing).toEqual([]);
    expect(rows.every((r) => r.n === 1)).toBe(true);
  });
});
