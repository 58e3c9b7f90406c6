import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { chatLoad, findRepoRoot, loadSummary as summary, waitUntil } from '@llmgw/testing';
import { exportedNames, missingMetrics, panelQueries, ruleQueries, sqlWithMacros } from './metric-names';

// The scaled topology as processes (tools/scripts/topology.cjs, the same one deploy/compose runs in
// containers): accounting ×2, admission leader + standby, inventory, the placement-scheduler, two
// fake-GPU node-agents and three routers behind haproxy, all over mTLS. Traffic goes through
// haproxy while one router and one accounting instance are SIGKILLed: no request started after a
// kill fails, and every request served has its usage row. The dashboards and alert rules query
// only metrics the running services export.
const haveHaproxy = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
const havePrometheus = spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0;
if (!haveHaproxy) console.warn('topology test skipped: haproxy is not installed (apt-get install -y haproxy; .ci/run installs it)');
jest.setTimeout(600_000);

const root = findRepoRoot();

interface Proc {
  name: string;
  role: string;
  pid: number;
  url?: string;
  admin?: string;
}
interface Topology {
  lb: string;
  key: string;
  model: string;
  dir: string;
  database_url: string;
  prometheus?: string;
  processes: Proc[];
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGKILLs a process of the topology and resolves once it is gone. */
async function kill(p: Proc): Promise<void> {
  process.kill(p.pid, 'SIGKILL');
  await waitUntil(() => !alive(p.pid), `${p.name} (pid ${p.pid}) to die`, { timeoutMs: 10_000, everyMs: 10 });
}

(haveHaproxy ? describe : describe.skip)('the scaled topology as processes (tools/scripts/topology.cjs)', () => {
  let script: ChildProcess;
  let t: Topology;
  let output = '';
  const byName = (name: string) => t.processes.find((p) => p.name === name)!;

  beforeAll(async () => {
    script = spawn(process.execPath, [join(root, 'tools/scripts/topology.cjs'), ...(havePrometheus ? ['--prometheus'] : []), '--log-level', 'warn'], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LLMGW_QUIET_BUILD: '1' },
    });
    script.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<string>((r) => script.once('exit', (code) => r(`topology.cjs exited (${code}): ${output}`)));
    const line = new Promise<string>((r) => createInterface({ input: script.stdout! }).on('line', (l) => l.startsWith('{"msg":"topology up"') && r(l)));
    const first = await Promise.race([line, exited]);
    if (!first.startsWith('{')) throw new Error(first);
    t = JSON.parse(first) as Topology;
  });

  afterAll(async () => {
    if (!script?.pid) return;
    if (script.exitCode === null) {
      const gone = new Promise((r) => script.once('exit', r));
      script.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([gone, new Promise((r) => (timer = setTimeout(r, 60_000)))]);
      clearTimeout(timer);
    }
    try {
      process.kill(-script.pid, 'SIGKILL');
    } catch {
      /* the group is gone */
    }
  });

  it('runs every role with its replicas, mTLS on every gRPC link, one admission leader', async () => {
    const roles = t.processes.map((p) => p.role).sort();
    expect(roles).toEqual(
      expect.arrayContaining([
        'accounting',
        'accounting',
        'admission',
        'admission',
        'haproxy',
        'inventory',
        'node-agent',
        'node-agent',
        'placement-scheduler',
        'router',
        'router',
        'router',
      ]),
    );
    // The ControlService refuses a caller without a client certificate of the topology's CA.
    const ctl = (flags: string[]) => ctlReplicas(t, flags);
    expect(ctl(ctlFlags(t).slice(0, 4)).status).not.toBe(0);
    // "topology up" means every router serves the model; its second replica may still be loading.
    const readyReplicas = () =>
      (JSON.parse(ctl(ctlFlags(t)).stdout) as Array<{ model: string; state: string }>).filter((r) => r.model === t.model && r.state === 'REPLICA_STATE_READY')
        .length;
    await waitUntil(() => readyReplicas() >= 2, 'both replicas of the model READY', { timeoutMs: 120_000, everyMs: 500 });
    expect(readyReplicas()).toBe(2);
    const ready = await Promise.all(['admission-1', 'admission-2'].map(async (n) => (await fetch(`${byName(n).admin}/readyz`)).status));
    expect(ready.sort()).toEqual([200, 503]);
  });

  it('dashboards and alert rules query only metrics the services export; SQL panels run on the accounting database', async () => {
    const warm = chatLoad(t.lb, 4, { model: t.model, key: t.key, maxTokens: 16 });
    await waitUntil(() => warm.outcomes.filter((o) => o.ok).length >= 20, 'warm-up traffic', { timeoutMs: 120_000, everyMs: 50 });
    await warm.stop();
    const texts: string[] = [];
    for (const p of t.processes.filter((x) => x.admin)) texts.push(await (await fetch(`${p.admin}/metrics`)).text());
    // The engines the agents launched (vLLM-style /metrics: engine TTFT, TPOT, prefix cache).
    const endpoints = (JSON.parse(ctlReplicas(t, ctlFlags(t)).stdout) as Array<{ endpoint: string }>).map((r) => r.endpoint);
    expect(endpoints.length).toBeGreaterThanOrEqual(2);
    for (const e of endpoints) texts.push(await (await fetch(`${e}/metrics`)).text());
    const exported = exportedNames(texts);
    const queries = [...panelQueries(join(root, 'deploy/grafana/dashboards')), ...ruleQueries(join(root, 'deploy/prometheus/alerts.yml'))];
    expect(queries.filter((q) => q.kind === 'promql').length).toBeGreaterThan(40);
    expect(missingMetrics(queries, exported)).toEqual([]);

    // Every SQL panel runs on the accounting database, and the usage panel shows this traffic.
    const db = new Client({ connectionString: t.database_url });
    await db.connect();
    try {
      for (const q of queries.filter((x) => x.kind === 'sql')) {
        const r = await db.query(sqlWithMacros(q.expr, Date.now() - 3_600_000, Date.now() + 60_000)).catch((e: Error) => new Error(`${q.where}: ${e.message}`));
        expect(r instanceof Error ? r.message : 'ok').toBe('ok');
      }
      const usage = queries.find((q) => q.kind === 'sql' && q.where.includes('Usage by org, project and model'))!;
      await waitUntil(
        async () => {
          const r = await db.query(sqlWithMacros(usage.expr, Date.now() - 3_600_000, Date.now() + 60_000));
          return r.rows.some((row: { org: string; requests: string }) => row.org === 'topology' && Number(row.requests) >= 20);
        },
        'the usage panel to show the warm-up traffic',
        { timeoutMs: 30_000, everyMs: 250 },
      );
    } finally {
      await db.end();
    }

    // With Prometheus (Debian's package; .ci/run installs it) every expression also evaluates there.
    if (t.prometheus) {
      for (const q of queries.filter((x) => x.kind === 'promql')) {
        const r = (await (await fetch(`${t.prometheus}/api/v1/query?query=${encodeURIComponent(q.expr.replace(/\$__rate_interval/g, '1m'))}`)).json()) as {
          status: string;
          error?: string;
        };
        expect({ where: q.where, status: r.status, error: r.error }).toEqual({ where: q.where, status: 'success', error: undefined });
      }
    }
  });

  it('SIGKILL of a router and of an accounting instance under load: no request started after a kill fails, every served request has its usage row', async () => {
    const l = chatLoad(t.lb, 8, { model: t.model, key: t.key, maxTokens: 16 });
    await waitUntil(() => l.outcomes.filter((o) => o.ok).length >= 30, `steady load (${summary(l.outcomes)})`, { timeoutMs: 120_000, everyMs: 50 });
    await kill(byName('router-2'));
    const routerDied = performance.now();
    await waitUntil(() => l.outcomes.filter((o) => o.ok && o.startedAt > routerDied).length >= 30, `load after the router kill (${summary(l.outcomes)})`, {
      timeoutMs: 120_000,
      everyMs: 50,
    });
    // accounting-2 is the one router-3 resolves keys with, and a consumer of the usage stream.
    await kill(byName('accounting-2'));
    const accountingDied = performance.now();
    await waitUntil(
      () => l.outcomes.filter((o) => o.ok && o.startedAt > accountingDied).length >= 30,
      `load after the accounting kill (${summary(l.outcomes)})`,
      { timeoutMs: 120_000, everyMs: 50 },
    );
    const all = await l.stop();
    const failed = all.filter((o) => !o.ok);
    expect(failed.filter((o) => o.startedAt > routerDied)).toEqual([]);
    // Only requests in flight on the killed router failed (8 clients: at most 8).
    expect(failed.length).toBeLessThanOrEqual(8);
    expect(new Set(all.filter((o) => o.startedAt > routerDied).map((o) => o.router))).toEqual(new Set(['router1', 'router3']));

    // Every served request's usage row reaches the database exactly once, the killed accounting
    // instance's unacknowledged records included (claimed by the other after claim_idle).
    const served = all.filter((o) => o.ok).map((o) => o.id);
    const db = new Client({ connectionString: t.database_url });
    await db.connect();
    try {
      let rows: Array<{ request_id: string; n: string }> = [];
      await waitUntil(
        async () => {
          rows = (await db.query('SELECT request_id, count(*) AS n FROM usage WHERE request_id = ANY($1) GROUP BY request_id', [served])).rows;
          return rows.length === served.length;
        },
        'a usage row for every served request',
        { timeoutMs: 90_000, everyMs: 500 },
      ).catch(() => undefined);
      const have = new Set(rows.map((r) => r.request_id));
      expect(served.filter((id) => !have.has(id))).toEqual([]);
      expect(rows.filter((r) => Number(r.n) !== 1)).toEqual([]);
    } finally {
      await db.end();
    }
  });
});

/** `llmgw ctl replicas --json` with these flags only: no ctl.yaml found, no LLMGW_* settings. */
function ctlReplicas(t: Topology, flags: string[]) {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: t.dir, LLMGW_QUIET_BUILD: '1' };
  return spawnSync(process.execPath, [join(root, 'bin/llmgw.cjs'), 'ctl', 'replicas', '--json', ...flags], { cwd: t.dir, encoding: 'utf8', env });
}

/** `llmgw ctl` flags for the topology's placement-scheduler, with its operator certificate. */
function ctlFlags(t: Topology): string[] {
  const sched = t.processes.find((p) => p.role === 'placement-scheduler')!;
  const tls = join(t.dir, 'tls');
  return [
    '--control',
    new URL(sched.url!).host,
    '--tls-ca',
    join(tls, 'ca.crt'),
    '--tls-cert',
    join(tls, 'operator.crt'),
    '--tls-key',
    join(tls, 'operator.key'),
  ];
}
