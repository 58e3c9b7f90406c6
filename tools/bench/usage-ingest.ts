/**
 * What the usage ingest's insert costs per record: accounting writes each batch of usage records
 * it reads from the ledger into Postgres in one statement (apps/accounting/src/usage-store.ts,
 * `insertUsageRows`: one array parameter per column, `unnest`ed into rows). The reference, run
 * alternately in the same process against the same table, is the statement it replaced: a
 * multi-row `VALUES` list with one placeholder per column per row (17 × the batch size), which
 * the client builds and Postgres parses again for every batch.
 *
 * Prints per batch size and form: records per second, the client's CPU per record (query
 * building, parameter encoding, the driver; on PGlite also the database itself, which runs in
 * the process) and, on Postgres, the server backend's CPU per record (/proc/<pid>/stat of the
 * one connection). Then, on Postgres, the same for the batch's `last_used_at` update of --keys
 * distinct keys: one statement for all (`updateLastUsed`) against the statement per key it
 * replaced. Needs PostgreSQL at 127.0.0.1:5432 (or LLMGW_TEST_PG_URL).
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/usage-ingest.ts [--quick] [--batches 50,200,1000] [--records N] [--keys 200]
 */
import { createDb, type Database, type NewUsageRow } from '@llmgw/db';
import { createTestDatabase } from '@llmgw/db/testing';
import { sql, type Kysely } from 'kysely';
import { insertUsageRows, toUsageRow, updateLastUsed } from '../../apps/accounting/src/usage-store';
import { procUsage } from './lib/open-loop';

const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const QUICK = argv.includes('--quick');
const BATCHES = (opt('batches') ?? (QUICK ? '200' : '50,200,1000')).split(',').map(Number);
/** Records per form and batch size, split into alternating rounds. */
const RECORDS = Number(opt('records') ?? (QUICK ? 4_000 : 40_000));
const ROUNDS = QUICK ? 2 : 4;

type Form = 'unnest' | 'values';
const FORMS: Form[] = ['values', 'unnest'];

let seq = 0;
/** A batch of records as a router writes them (one key, a few models, some optional fields absent). */
function batch(n: number): NewUsageRow[] {
  const rows: NewUsageRow[] = [];
  for (let i = 0; i < n; i++) {
    const k = seq++;
    rows.push(
      toUsageRow({
        recordId: `rec-${k}`,
        requestId: `req-${k}`,
        ts: 1_796_000_000_000 + k,
        keyId: `key_${k % 20}`,
        projectId: 'proj_bench',
        model: k % 3 ? 'llama-3.1-8b' : 'qwen-2.5-7b',
        servedModel: k % 3 ? 'llama-3.1-8b' : 'qwen-2.5-7b',
        pool: 'h100-80g',
        status: k % 50 ? 200 : 429,
        promptTokens: 120 + (k % 400),
        completionTokens: 30 + (k % 200),
        cachedTokens: k % 64,
        ttftMs: k % 50 ? 40 + (k % 30) : undefined,
        durationMs: 300 + (k % 900),
        queueMs: k % 7,
        costMicros: 1_000 + (k % 5_000),
      }),
    );
  }
  return rows;
}

function insert(db: Kysely<Database>, form: Form, rows: NewUsageRow[]): Promise<unknown> {
  return db.transaction().execute(async (tx) => {
    if (form === 'unnest') await insertUsageRows(rows).execute(tx);
    else
      await tx
        .insertInto('usage')
        .values(rows)
        .onConflict((oc) => oc.column('record_id').doNothing())
        .execute();
  });
}

/** CPU ms of a process so far (utime + stime, in /proc's 10 ms ticks). */
const procCpuMs = (pid: number): number => procUsage(pid).cpuS * 1000;

interface Tally {
  records: number;
  wallMs: number;
  clientMs: number;
  serverMs: number;
}

async function measure(url: string, label: string): Promise<void> {
  // One connection, so that the server's share is one backend's CPU.
  const h = await createDb(url, { poolSize: 1 });
  const backend = h.kind === 'postgres' ? (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(h.db)).rows[0].pid : undefined;
  try {
    for (const size of BATCHES) {
      const t: Record<Form, Tally> = {
        unnest: { records: 0, wallMs: 0, clientMs: 0, serverMs: 0 },
        values: { records: 0, wallMs: 0, clientMs: 0, serverMs: 0 },
      };
      // Warm both forms (JIT, the server's plan cache) before counting.
      for (const f of FORMS) await insert(h.db, f, batch(size));
      const perRound = Math.max(1, Math.round(RECORDS / size / ROUNDS));
      for (let round = 0; round < ROUNDS; round++) {
        for (const f of round % 2 ? [...FORMS].reverse() : FORMS) {
          const batches = Array.from({ length: perRound }, () => batch(size));
          const c0 = process.cpuUsage();
          const s0 = backend ? procCpuMs(backend) : 0;
          const w0 = performance.now();
          for (const b of batches) await insert(h.db, f, b);
          t[f].wallMs += performance.now() - w0;
          const c = process.cpuUsage(c0);
          t[f].clientMs += (c.user + c.system) / 1000;
          t[f].serverMs += backend ? procCpuMs(backend) - s0 : 0;
          t[f].records += perRound * size;
        }
      }
      for (const f of FORMS) {
        const x = t[f];
        const us = (ms: number) => ((ms * 1000) / x.records).toFixed(1).padStart(8);
        console.log(
          `${label.padEnd(9)} ${String(size).padStart(6)}  ${f.padEnd(7)} ${String(Math.round((x.records * 1000) / x.wallMs)).padStart(10)}  ${us(x.clientMs)}  ${
            backend ? us(x.serverMs) : '       —'
          }  ${us(x.clientMs + x.serverMs)}`,
        );
      }
      const ratio = (t.unnest.clientMs + t.unnest.serverMs) / t.unnest.records / ((t.values.clientMs + t.values.serverMs) / t.values.records);
      console.log(`${''.padEnd(9)} ${''.padStart(6)}  unnest / values, CPU per record: ${ratio.toFixed(2)}×`);
    }
  } finally {
    await h.close();
  }
}

const KEYS = Number(opt('keys') ?? 200);

/** The batch's last_used_at update for KEYS distinct keys: one statement against one per key, alternately. */
async function measureLastUsed(url: string): Promise<void> {
  const h = await createDb(url, { poolSize: 1 });
  const backend = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(h.db)).rows[0].pid;
  try {
    await sql`insert into organizations (id, name, created_at) values ('org_b', 'bench', 0)`.execute(h.db);
    await sql`insert into teams (id, org_id, name, created_at) values ('team_b', 'org_b', 'bench', 0)`.execute(h.db);
    await sql`insert into projects (id, team_id, name, created_at) values ('proj_b', 'team_b', 'bench', 0)`.execute(h.db);
    const ids = Array.from({ length: KEYS }, (_, i) => `key_b${i}`);
    for (const id of ids)
      await sql`insert into api_keys (id, key_hash, key_prefix, name, project_id, created_at) values (${id}, ${id}, ${id}, ${id}, 'proj_b', 0)`.execute(h.db);
    let ts = 1_796_000_000_000;
    const forms = {
      'one statement': (lastUse: Map<string, number>) => h.db.transaction().execute((tx) => updateLastUsed(lastUse, 60_000).execute(tx)),
      'per key': (lastUse: Map<string, number>) =>
        h.db.transaction().execute(async (tx) => {
          for (const [id, t] of lastUse)
            await tx
              .updateTable('api_keys')
              .set({ last_used_at: t })
              .where('id', '=', id)
              .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', t - 60_000)]))
              .execute();
        }),
    };
    const tally = new Map(Object.keys(forms).map((f) => [f, { n: 0, wallMs: 0, clientMs: 0, serverMs: 0 }]));
    const perRound = QUICK ? 5 : 20;
    for (let round = 0; round < ROUNDS * 2; round++) {
      for (const [name, run] of round % 2 ? Object.entries(forms).reverse() : Object.entries(forms)) {
        const c0 = process.cpuUsage();
        const s0 = procCpuMs(backend);
        const w0 = performance.now();
        // Each batch a minute after the last, so every key moves every time.
        for (let i = 0; i < perRound; i++) await run(new Map(ids.map((id) => [id, (ts += 61_000)])));
        const x = tally.get(name)!;
        x.wallMs += performance.now() - w0;
        const c = process.cpuUsage(c0);
        x.clientMs += (c.user + c.system) / 1000;
        x.serverMs += procCpuMs(backend) - s0;
        x.n += perRound;
      }
    }
    console.log(`\nlast_used_at of ${KEYS} keys per batch, ms per batch (postgres)\nform            wall   client   server`);
    for (const [name, x] of tally)
      console.log(
        `${name.padEnd(14)} ${(x.wallMs / x.n).toFixed(2).padStart(6)}  ${(x.clientMs / x.n).toFixed(2).padStart(7)}  ${(x.serverMs / x.n).toFixed(2).padStart(7)}`,
      );
  } finally {
    await h.close();
  }
}

async function main(): Promise<void> {
  console.log(`usage ingest insert: ${RECORDS} records per form and batch size, in ${ROUNDS} alternating rounds (${process.version})`);
  console.log('database  batch   form      records/s  client µs  server µs   total µs   (CPU per record)');
  await measure('pglite:memory', 'pglite');
  const pg = await createTestDatabase('llmgw_bench_ingest');
  try {
    await measure(pg.url, 'postgres');
    await measureLastUsed(pg.url);
  } finally {
    await pg.drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
