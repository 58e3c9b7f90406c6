import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** One query of a dashboard panel or an alert rule, and where it is (for failure messages). */
export interface Query {
  kind: 'promql' | 'sql';
  expr: string;
  where: string;
}

interface Panel {
  title?: string;
  targets?: Array<{ expr?: string; rawSql?: string }>;
  panels?: Panel[];
}

/** Every query of every panel of the dashboards (JSON files) in `dir`. */
export function panelQueries(dir: string): Query[] {
  const out: Query[] = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.json'))
    .sort()) {
    const d = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { panels: Panel[] };
    const walk = (ps: Panel[]) => {
      for (const p of ps) {
        for (const t of p.targets ?? []) {
          if (t.expr) out.push({ kind: 'promql', expr: t.expr, where: `${f}: ${p.title}` });
          if (t.rawSql) out.push({ kind: 'sql', expr: t.rawSql, where: `${f}: ${p.title}` });
        }
        walk(p.panels ?? []);
      }
    };
    walk(d.panels);
  }
  return out;
}

/** Every alert or recording rule's expression in a Prometheus rules file. */
export function ruleQueries(file: string): Query[] {
  const doc = parse(readFileSync(file, 'utf8')) as { groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string }> }> };
  return doc.groups.flatMap((g) => g.rules.map((r) => ({ kind: 'promql' as const, expr: r.expr, where: `${g.name}/${r.alert ?? r.record}` })));
}

/** Metric families in Prometheus text exposition (`# TYPE name type`), with their types. */
export function exportedNames(texts: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of texts) for (const m of t.matchAll(/^# TYPE (\S+) (\S+)$/gm)) out.set(m[1], m[2]);
  return out;
}

// Series Prometheus makes itself, not a service.
const PROMETHEUS_OWN = new Set(['up']);

/** The llmgw, vLLM and Prometheus metric names a PromQL expression selects. */
export function metricsOf(expr: string): string[] {
  const names = new Set<string>();
  for (const m of expr.matchAll(/(?<![\w:])(llmgw_[a-z0-9_]+|vllm:[a-z0-9_:]+)/g)) names.add(m[1]);
  for (const m of expr.matchAll(/(?<![\w:"$])(up)(?=\s*\{)/g)) names.add(m[1]);
  return [...names];
}

/** "where: name" for every metric a query selects that nothing exports (histogram series included). */
export function missingMetrics(queries: Query[], exported: Map<string, string>): string[] {
  const exists = (n: string) => {
    if (PROMETHEUS_OWN.has(n) || exported.has(n)) return true;
    const h = /^(.*)_(bucket|sum|count)$/.exec(n);
    return !!h && ['histogram', 'summary'].includes(exported.get(h[1]) ?? '') && (h[2] !== 'bucket' || exported.get(h[1]) === 'histogram');
  };
  return queries
    .filter((q) => q.kind === 'promql')
    .flatMap((q) =>
      metricsOf(q.expr)
        .filter((n) => !exists(n))
        .map((n) => `${q.where}: ${n}`),
    );
}

/** A panel's SQL with Grafana's time macros filled in for [fromMs, toMs). */
export function sqlWithMacros(sql: string, fromMs: number, toMs: number): string {
  return sql.replace(/\$__unixEpochFrom\(\)/g, String(Math.floor(fromMs / 1000))).replace(/\$__unixEpochTo\(\)/g, String(Math.ceil(toMs / 1000)));
}
