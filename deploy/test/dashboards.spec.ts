import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { findRepoRoot } from '@llmgw/testing';
import { exportedNames, metricsOf, missingMetrics, panelQueries, ruleQueries, sqlWithMacros } from './metric-names';

// The provisioned Grafana dashboards and the Prometheus alert rules, checked without running
// anything: every panel names a provisioned datasource, the provisioning points at the files, and
// the checker the topology test uses against live /metrics (metric-names.ts) catches what it must.
const root = findRepoRoot();
const dir = join(root, 'deploy/grafana/dashboards');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: Array<{ datasource?: { uid: string } }>;
}

describe('Grafana dashboards (deploy/grafana)', () => {
  it('are the data path, the fleet and accounting, each with a unique uid and panels', () => {
    const dashboards = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { uid: string; title: string; panels: Panel[] });
    expect(dashboards.map((d) => d.uid).sort()).toEqual(['llmgw-accounting', 'llmgw-data-path', 'llmgw-fleet']);
    for (const d of dashboards) {
      const panels = d.panels.filter((p) => p.type !== 'row');
      expect(panels.length).toBeGreaterThanOrEqual(6);
      expect(new Set(d.panels.map((p) => p.id)).size).toBe(d.panels.length);
    }
  });

  it('use only the provisioned datasources, and the provisioning loads this folder', () => {
    const ds = parse(readFileSync(join(root, 'deploy/grafana/provisioning/datasources/llmgw.yaml'), 'utf8')) as { datasources: Array<{ uid: string }> };
    const uids = new Set(ds.datasources.map((d) => d.uid));
    for (const f of files) {
      const d = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { panels: Panel[] };
      for (const p of d.panels.filter((x) => x.type !== 'row')) {
        expect([f, p.title, uids.has(p.datasource?.uid ?? '')]).toEqual([f, p.title, true]);
        for (const t of p.targets ?? []) expect(uids.has(t.datasource?.uid ?? '')).toBe(true);
      }
    }
    const prov = parse(readFileSync(join(root, 'deploy/grafana/provisioning/dashboards/llmgw.yaml'), 'utf8')) as {
      providers: Array<{ options: { path: string } }>;
    };
    // compose mounts deploy/grafana/dashboards at the provider's path.
    const compose = readFileSync(join(root, 'deploy/compose/compose.yaml'), 'utf8');
    expect(compose).toContain(`../grafana/dashboards:${prov.providers[0].options.path}:ro`);
  });

  it('cover what the issue names: TTFT/TPOT, router-added latency, queues, cache, nodes, GPUs, shards, ledger lag, budget', () => {
    const all = panelQueries(dir)
      .map((q) => q.expr)
      .join('\n');
    for (const m of [
      'llmgw_ttft_seconds_bucket',
      'vllm:inter_token_latency_seconds_bucket',
      'vllm:time_to_first_token_seconds_bucket',
      'llmgw_admission_queue_depth',
      'llmgw_admission_wait_seconds_bucket',
      'llmgw_cache_decision_total',
      'vllm:prefix_cache_hits_total',
      'llmgw_inventory_nodes',
      'llmgw_gpu_free',
      'llmgw_agent_shards',
      'llmgw_placement_replicas_failed_total',
      'llmgw_placement_reconcile_passes_total',
      'llmgw_usage_stream_depth',
    ])
      expect(all).toContain(m);
    expect(all).toMatch(/FROM limits l/);
    expect(all).toMatch(/JOIN organizations o/);
  });
});

describe('alert rules (deploy/prometheus/alerts.yml)', () => {
  const rules = ruleQueries(join(root, 'deploy/prometheus/alerts.yml'));

  it('page for no healthy replica, ledger lag, a lost leader, a lost node and an exhausted budget', () => {
    const names = rules.map((r) => r.where.split('/')[1]);
    expect(names).toEqual(
      expect.arrayContaining([
        'LlmgwNoHealthyReplica',
        'LlmgwLedgerLag',
        'LlmgwAdmissionLeaderLost',
        'LlmgwPlacementLeaderLost',
        'LlmgwNodeLost',
        'LlmgwBudgetExhausted',
      ]),
    );
  });

  const promtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
  (promtool ? it : it.skip)('pass promtool check rules', () => {
    const r = spawnSync('promtool', ['check', 'rules', join(root, 'deploy/prometheus/alerts.yml')], { encoding: 'utf8' });
    expect({ status: r.status, out: r.stdout + r.stderr }).toEqual({ status: 0, out: expect.stringContaining('SUCCESS') });
  });
});

describe('the metric-name checker', () => {
  const exposition = [
    '# HELP llmgw_requests_total x\n# TYPE llmgw_requests_total counter\nllmgw_requests_total{status="200"} 3\n',
    '# TYPE llmgw_ttft_seconds histogram\n# TYPE vllm:inter_token_latency_seconds histogram\n# TYPE llmgw_gpu_free gauge\n',
  ];
  const exported = exportedNames(exposition);

  it('finds the llmgw and vLLM names in PromQL, histogram series and Prometheus’s own up included', () => {
    expect(
      metricsOf('histogram_quantile(0.5, sum by (le) (rate(vllm:inter_token_latency_seconds_bucket[5m]))) - sum(llmgw_gpu_free{fabric="a"})').sort(),
    ).toEqual(['llmgw_gpu_free', 'vllm:inter_token_latency_seconds_bucket']);
    expect(metricsOf('up{job="router"} == 0')).toEqual(['up']);
    expect(metricsOf('sum by (band) (llmgw_x) > 0 unless on (model) up_to_date')).toEqual(['llmgw_x']);
  });

  it('reports a metric nobody exports, and a _bucket of something that is not a histogram', () => {
    const q = (expr: string) => ({ kind: 'promql' as const, expr, where: 'p' });
    expect(
      missingMetrics([q('rate(llmgw_requests_total[1m])'), q('llmgw_ttft_seconds_bucket'), q('llmgw_ttft_seconds_count'), q('up{job="x"}')], exported),
    ).toEqual([]);
    expect(missingMetrics([q('rate(llmgw_request_total[1m])'), q('llmgw_gpu_free_bucket'), q('vllm:gone')], exported)).toEqual([
      'p: llmgw_request_total',
      'p: llmgw_gpu_free_bucket',
      'p: vllm:gone',
    ]);
  });

  it('fills Grafana’s epoch macros in SQL', () => {
    expect(sqlWithMacros('ts >= $__unixEpochFrom() * 1000 AND ts < $__unixEpochTo() * 1000', 1_000_500, 2_000_500)).toBe(
      'ts >= 1000 * 1000 AND ts < 2001 * 1000',
    );
  });
});
