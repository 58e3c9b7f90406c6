/**
 * Keys known before an accounting outage keep working through it, used or not
 * (docs/accounting.md, "When accounting is unreachable"): real processes — a
 * router, accounting on a fresh Postgres database, a sim-engine — and Redis.
 * Accounting is hung (SIGSTOP), then killed (connection refused), then started
 * again on the same port.
 */
import type { AccountingMethod } from '@llmgw/accounting-rpc';
import { createTestDatabase } from '@llmgw/db/testing';
import { TenancyAdmin, dropKeyPrefix, startAccountingProcess, type SpawnedRole, spawnRole, waitUntil, writeTenancyRouterConfig } from '@llmgw/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

jest.setTimeout(120_000);

const prefix = `test:${randomUUID()}:`;
const dir = mkdtempSync(join(tmpdir(), 'llmgw-known-keys-'));

let db: { url: string; drop(): Promise<void> };
let redis: Redis;
let sim: SpawnedRole;
let acct: SpawnedRole;
let acctPort = 0;
let router: SpawnedRole;
let tenancy: TenancyAdmin;

async function startAccounting(): Promise<SpawnedRole> {
  const a = await startAccountingProcess({
    databaseUrl: db.url,
    keyPrefix: prefix,
    consumer: 'acct-known-keys',
    port: acctPort,
    args: ['--log-level', 'warn'],
  });
  acctPort = Number(new URL(a.urls.grpc).port);
  return a;
}

const admin = <T>(m: AccountingMethod, req: object) => tenancy.call<T>(m, req);
const newKey = (name: string) => tenancy.newKey(name);

async function chat(key: string): Promise<number> {
  const res = await fetch(`${router.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** The router's counter `name{result=…}` values. */
async function counter(name: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${router.urls.admin}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${name}\\{[^}]*result="(\\w+)"[^}]*\\} (\\d+)`, 'gm'))) out[m[1]] = Number(m[2]);
  return out;
}
const delta = (after: Record<string, number>, before: Record<string, number>, k: string) => (after[k] ?? 0) - (before[k] ?? 0);

beforeAll(async () => {
  db = await createTestDatabase();
  redis = new Redis({ host: '127.0.0.1', port: 6379 });
  [sim, acct] = await Promise.all([spawnRole('sim-engine', ['--port', '0', '--model', 'm', '--prefill-tps', '0', '--decode-tps', '1000']), startAccounting()]);
  tenancy = await new TenancyAdmin(`127.0.0.1:${acctPort}`, 'known-keys-test', 5_000).seedProject();
  // A short cache TTL: during the outage every cached key is stale, the case where each request used to wait.
  const config = writeTenancyRouterConfig(join(dir, 'router.yaml'), {
    accountingAddress: `127.0.0.1:${acctPort}`,
    keyPrefix: prefix,
    tenancy: ['  cache_ttl: 200ms', '  resolve_timeout: 2s'],
  });
  router = await spawnRole('router', ['--config', config, '--endpoint', `sim=${sim.url}=m`, '--port', '0', '--admin-port', '0', '--log-level', 'warn']);
}, 300_000);

afterAll(async () => {
  tenancy?.close();
  if (acct?.proc.signalCode === null && acct.proc.exitCode === null) acct.proc.kill('SIGCONT');
  await Promise.all([router, acct, sim].filter(Boolean).map((p) => p.stop().catch(() => undefined)));
  await dropKeyPrefix(redis, prefix);
  await redis.quit();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('known keys through an accounting outage', () => {
  it('hung, then refused, then restarted: used and never-used keys keep working, a revoked key stays refused, and requests do not each wait for accounting', async () => {
    const used = await newKey('used');
    const unused = await newKey('never-used');
    const revoked = await newKey('revoked');
    expect(await chat(used.secret)).toBe(200);
    expect(await chat(revoked.secret)).toBe(200);
    await admin('RevokeKey', { ref: revoked.id });
    await waitUntil(async () => (await chat(revoked.secret)) === 401, 'the revocation reaching the router', { timeoutMs: 10_000, everyMs: 50 });
    // Accounting has published all three, with no secret in Redis.
    const stored = await Promise.all((await redis.keys(`${prefix}apikey:*`)).map((k) => redis.get(k)));
    expect(stored.map((s) => JSON.parse(s!).state).sort()).toEqual(['active', 'active', 'revoked']);
    for (const s of stored) for (const k of [used, unused, revoked]) expect(s).not.toContain(k.secret);

    // --- hung: accounting accepts connections and never answers.
    acct.proc.kill('SIGSTOP');
    const lookups0 = await counter('llmgw_key_cache_total');
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push(await chat(i % 2 ? used.secret : unused.secret));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(await chat(revoked.secret)).toBe(401);
    const lookups1 = await counter('llmgw_key_cache_total');
    // Only a lookup of a key not in the cache waits for ResolveKey; there is one such per key
    // (the never-used key, the revoked one); the 30 others were answered from the cache or the record.
    expect(delta(lookups1, lookups0, 'miss')).toBeLessThanOrEqual(2);
    expect(delta(lookups1, lookups0, 'stale') + delta(lookups1, lookups0, 'record')).toBeGreaterThanOrEqual(29);
    await waitUntil(async () => ((await counter('llmgw_key_resolve_total')).failed ?? 0) >= 1, 'a ResolveKey timing out', { timeoutMs: 10_000, everyMs: 100 });

    // --- refused: accounting is gone, its port closed.
    acct.proc.kill('SIGKILL');
    await acct.stop();
    for (let i = 0; i < 6; i++) expect(await chat(i % 2 ? used.secret : unused.secret)).toBe(200);
    expect(await chat(revoked.secret)).toBe(401);

    // --- back on the same port: a key minted now works at once on the router, and ResolveKey answers again.
    acct = await startAccounting();
    const after = await newKey('after-restart');
    const t0 = Date.now();
    await waitUntil(async () => (await chat(after.secret)) === 200, 'the new key accepted', { timeoutMs: 15_000, everyMs: 20 });
    const acceptedMs = Date.now() - t0;
    const ok0 = (await counter('llmgw_key_resolve_total')).ok ?? 0;
    await waitUntil(
      async () => {
        await chat(unused.secret);
        return ((await counter('llmgw_key_resolve_total')).ok ?? 0) > ok0;
      },
      'ResolveKey answering again',
      { timeoutMs: 15_000, everyMs: 100 },
    );
    const reconnectMs = Date.now() - t0;
    // A measurement, not an assertion (docs/accounting.md quotes it).
    process.stderr.write(`known-keys: new key accepted ${acceptedMs} ms after CreateKey returned; ResolveKey answering ${reconnectMs} ms after\n`);
    // Revocation still reaches the router promptly once accounting is back.
    await admin('RevokeKey', { ref: unused.id });
    await waitUntil(async () => (await chat(unused.secret)) === 401, 'the revocation reaching the router', { timeoutMs: 10_000, everyMs: 50 });
  });
});
