/**
 * The portal's admin pages at scale (docs/portal.md): a fleet of 1000 fake
 * nodes (a ControlService in this process answering ListNodes with them)
 * and a usage table of 10 million rows (raw rows plus their hourly rollups,
 * as accounting keeps them) in a fresh PostgreSQL database; a real `llmgw
 * accounting` and `llmgw portal`; then each admin page is fetched as a
 * signed-in admin and its latency reported (p50 / p95 / max of N fetches).
 * Needs PostgreSQL at 127.0.0.1:5432 (trust auth).
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/portal-admin.ts [--rows 10000000] [--nodes 1000] [--n 30]
 */
import { AccountingClient } from '@llmgw/accounting-rpc';
import { controlServiceDefinition, pageOfNodes } from '@llmgw/control-rpc';
import type { accountingV1, controlV1 } from '@llmgw/contracts';
import { createTestDatabase } from '@llmgw/db/testing';
import { createServer, listen } from '@llmgw/grpc';
import { spawnRole } from '@llmgw/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROWS = arg('rows', 10_000_000);
const NODES = arg('nodes', 1000);
const N = arg('n', 30);

function fakeNode(i: number): controlV1.Node {
  const id = `gpu-${String(i).padStart(4, '0')}`;
  const gpus = Array.from({ length: 8 }, (_, g) => ({ index: g, name: 'NVIDIA H100 80GB HBM3', gpuClass: i % 3 ? 'h100-80g' : 'a100-80g', memoryMib: 81_559 }));
  return {
    info: {
      nodeId: id,
      hostname: id,
      mgmtAddr: `10.0.${i >> 8}.${i & 255}`,
      gpus,
      fabrics: [{ fabric: `fab-${i % 8}`, hcas: ['mlx5_0'], rateGbps: 400 }],
      simulated: true,
    },
    state: i % 50 === 0 ? 'NODE_STATE_CORDONED' : 'NODE_STATE_READY',
    stateReason: i % 50 === 0 ? 'maintenance' : 'registered',
    lastSeenMs: Date.now(),
    allocations: Array.from({ length: 4 }, (_, g) => ({ gpuIndex: g, shardId: `${id}-s${g}`, model: `model-${i % 20}` })),
    shards: Array.from({ length: 2 }, (_, s) => ({
      shardId: `${id}-s${s}`,
      replicaId: `r-${i}-${s}`,
      state: 'SHARD_STATE_RUNNING',
      spec: { model: `model-${i % 20}` },
    })),
  } as never;
}

async function fakeControl(): Promise<{ address: string; close(): void }> {
  const nodes = Array.from({ length: NODES }, (_, i) => fakeNode(i));
  const server = createServer();
  const ok =
    <T>(v: T) =>
    (_c: unknown, cb: (e: null, v: T) => void) =>
      cb(null, v);
  server.addService(controlServiceDefinition(), {
    ListNodes: (call: { request: controlV1.ListNodesRequest__Output }, cb: (e: null, v: controlV1.ListNodesResponse) => void) =>
      cb(null, pageOfNodes(nodes, call.request)),
    ListModels: ok({
      models: Array.from({ length: 20 }, (_, m) => ({ name: `model-${m}`, replicasDesired: 4, replicasReady: 4, replicasTotal: 4, scalingMode: 'always-on' })),
    }),
    ListReplicas: ok({
      replicas: Array.from({ length: 80 }, (_, r) => ({
        replicaId: `r-${r}`,
        model: `model-${r % 20}`,
        gpuClass: 'h100-80g',
        fabric: `fab-${r % 8}`,
        state: 'REPLICA_STATE_READY',
        endpoint: `http://10.0.0.${r}:8000`,
      })),
    }),
  } as never);
  const port = await listen(server, '127.0.0.1', 0);
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

/**
 * 10M usage rows over 30 days (1000 keys, 100 projects, 20 models) in one
 * INSERT … SELECT generate_series, with the table's indexes built after the
 * rows are in (faster than maintaining them row by row), then the rollups as
 * accounting's rollup job leaves them (hourly, daily, per model-hour). The
 * table is unlogged: this database is thrown away after the run.
 */
async function fill(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const t0 = Date.now();
  const step = async (what: string, q: string, params: unknown[] = []) => {
    await c.query(q, params);
    process.stderr.write(`  ${what} (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  };
  await c.query("set maintenance_work_mem = '512MB'");
  await c.query('alter table usage set unlogged');
  const indexes = (
    await c.query<{ indexdef: string; indexname: string }>("select indexname, indexdef from pg_indexes where tablename = 'usage' and indexname <> 'usage_pkey'")
  ).rows;
  for (const i of indexes) await c.query(`drop index ${i.indexname}`);
  await c.query('alter table usage drop constraint usage_pkey');
  await step(
    `${ROWS} raw rows`,
    `insert into usage (record_id, request_id, ts, key_id, project_id, model, served_model, pool, status, prompt_tokens, completion_tokens, cached_tokens, ttft_ms, duration_ms, queue_ms, cost_micros, rolled_up)
     select 'r' || g, 'q' || g, $1::bigint - (g * 7919 % $2::bigint), 'key_' || (g % 1000), 'proj_' || (g % 100), 'model-' || (g % 20), 'model-' || (g % 20), 'h100-80g',
            case when g % 50 = 0 then 429 else 200 end, 200 + g % 300, 100 + g % 200, g % 100, 50, 900, 2, 300 + g % 1000, 1
     from generate_series(1::bigint, $3::bigint) g`,
    [Date.now(), 30 * 86_400_000, ROWS],
  );
  await step('primary key', 'alter table usage add constraint usage_pkey primary key (record_id)');
  for (const i of indexes) await step(i.indexname, i.indexdef);
  await step(
    'hourly rollup',
    `insert into usage_rollup (hour_ts, key_id, project_id, model, status, requests, prompt_tokens, completion_tokens, cached_tokens, cost_micros)
    select (ts / 3600000) * 3600000, key_id, max(project_id), served_model, status, count(*), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cost_micros)
    from usage group by 1, 2, 4, 5`,
  );
  await step(
    'daily rollup',
    `insert into usage_rollup_day (day_ts, key_id, project_id, model, status, requests, prompt_tokens, completion_tokens, cached_tokens, cost_micros)
    select (hour_ts / 86400000) * 86400000, key_id, max(project_id), model, status, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cost_micros)
    from usage_rollup group by 1, 2, 4, 5`,
  );
  await step(
    'model-hour rollup',
    `insert into usage_rollup_model_hour (hour_ts, model, status, requests, prompt_tokens, completion_tokens, cached_tokens, cost_micros)
    select hour_ts, model, status, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cost_micros)
    from usage_rollup group by 1, 2, 3`,
  );
  await step('analyze', 'analyze');
  const r = await c.query(
    'select (select count(*) from usage) as raw, (select count(*) from usage_rollup) as hourly, (select count(*) from usage_rollup_day) as daily',
  );
  process.stderr.write(
    `usage: ${r.rows[0].raw} raw rows, ${r.rows[0].hourly} hourly and ${r.rows[0].daily} daily rollup rows; filled in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`,
  );
  await c.end();
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main(): Promise<void> {
  const db = await createTestDatabase('llmgw_bench_portal');
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-portal-'));
  const control = await fakeControl();
  const acc = await spawnRole('accounting', ['--port', '0', '--admin-port', '0', '--database-url', db.url]);
  let portal: Awaited<ReturnType<typeof spawnRole>> | undefined;
  try {
    await fill(db.url);
    const admin = new AccountingClient({ address: acc.url, actor: 'bench' });
    const link = await admin.account<accountingV1.ClaimLinkCreated__Output>('CreateClaimLink', {
      kind: 'invite',
      email: 'bench@example.com',
      name: 'Bench',
      role: 'admin',
    });
    await admin.account('Claim', { token: link.token, password: 'bench-password-1' });
    for (let i = 0; i < 200; i++) await admin.call('CreateOrg', { name: `org-${i}` });
    admin.close();
    writeFileSync(
      join(dir, 'portal.yaml'),
      `listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nrouter_url: http://127.0.0.1:9\naccounting: { address: "${acc.url.replace('http://', '')}" }\ncontrol: { address: "${control.address}" }\nlog_level: warn\n`,
    );
    portal = await spawnRole('portal', ['-c', join(dir, 'portal.yaml')]);
    const base = portal.url;
    // Sign in as a browser would: the CSRF cookie and token, then the session cookie.
    const page = await fetch(`${base}/signin`);
    const csrfCookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const token = /name="csrf-token" content="([^"]+)"/.exec(await page.text())![1]!;
    const signed = await fetch(`${base}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: token, email: 'bench@example.com', password: 'bench-password-1' }),
    });
    const cookie = [csrfCookie, ...signed.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
    const pages = [
      '/admin',
      '/admin?page=7',
      '/admin?state=cordoned',
      '/admin/models',
      '/admin/people',
      '/admin/usage?by=model&days=7',
      '/admin/usage?by=key&days=30',
      '/admin/usage?by=org&days=30',
      '/admin/usage?by=team&days=7',
      '/admin/usage.csv?by=project&days=30',
      '/admin/audit',
      '/admin/settings',
    ];
    const out: string[] = [
      `fleet ${NODES} nodes, usage ${ROWS} rows; the first fetch (cold), then ${N} after 2 warm-ups`,
      'page                                  cold ms   p50 ms   p95 ms   max ms   bytes',
    ];
    for (const p of pages) {
      const lat: number[] = [];
      let bytes = 0;
      let cold = 0;
      for (let i = 0; i < N + 2; i++) {
        const t = performance.now();
        const r = await fetch(base + p, { headers: { cookie } });
        const body = await r.text();
        if (r.status !== 200) throw new Error(`${p}: HTTP ${r.status}: ${body.slice(0, 300)}`);
        if (i === 0) cold = performance.now() - t;
        if (i >= 2) lat.push(performance.now() - t);
        bytes = body.length;
      }
      out.push(
        `${p.padEnd(38)} ${cold.toFixed(1).padStart(7)}  ${pct(lat, 50).toFixed(1).padStart(7)}  ${pct(lat, 95).toFixed(1).padStart(7)}  ${Math.max(...lat)
          .toFixed(1)
          .padStart(7)}  ${String(bytes).padStart(7)}`,
      );
    }
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    await portal?.stop();
    await acc.stop();
    control.close();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
