import type { FastifyInstance } from 'fastify';
import type { Ctx } from './context';
import { mustRole } from './roles';
import { Snapshot } from './snapshot';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text exposition → samples (comments and malformed lines skipped). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m || Number.isNaN(Number(m[3]))) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

const sumBy = (xs: Sample[], name: string, label: string) => {
  const m = new Map<string, number>();
  for (const s of xs) if (s.name === name) m.set(s.labels[label] ?? '', (m.get(s.labels[label] ?? '') ?? 0) + s.value);
  return [...m].sort((a, b) => b[1] - a[1]);
};

/** A quantile (seconds) from cumulative histogram buckets summed over every series. */
export function quantile(xs: Sample[], name: string, q: number): number | undefined {
  const buckets = new Map<number, number>();
  for (const s of xs) {
    if (s.name !== `${name}_bucket`) continue;
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    buckets.set(le, (buckets.get(le) ?? 0) + s.value);
  }
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (!total) return undefined;
  return sorted.find(([, c]) => c >= q * total)?.[0];
}

/**
 * `/admin/traffic`: requests, time to first token, admission queues per band
 * and cache decisions, read from the services' own /metrics (`metrics_urls`)
 * and summed over them; shared by page views for two seconds.
 */
export function registerTraffic(app: FastifyInstance, c: Ctx): void {
  const scrape = new Snapshot(
    async () => {
      const texts = await Promise.all(
        c.cfg.metrics_urls.map((u) =>
          fetch(u, { signal: AbortSignal.timeout(1500) })
            .then((r) => r.text())
            .catch(() => ''),
        ),
      );
      return { samples: texts.flatMap(parseMetrics), reached: texts.filter(Boolean).length };
    },
    { freshMs: 2000, staleMs: 10_000 },
    c.now,
  );
  app.get('/admin/traffic', async (req, reply) => {
    if (!mustRole(req, reply, 'viewer')) return reply;
    const { samples, reached } = await scrape.get();
    const ms = (s?: number) => (s === undefined ? '-' : s === Infinity ? '> max bucket' : `≤ ${Math.round(s * 1000)} ms`);
    return c.page(req, reply, 'admin-traffic', {
      sources: c.cfg.metrics_urls.length,
      reached,
      byStatus: sumBy(samples, 'llmgw_requests_total', 'status'),
      byModel: sumBy(samples, 'llmgw_requests_total', 'model'),
      ttft: {
        p50: ms(quantile(samples, 'llmgw_ttft_seconds', 0.5)),
        p95: ms(quantile(samples, 'llmgw_ttft_seconds', 0.95)),
        p99: ms(quantile(samples, 'llmgw_ttft_seconds', 0.99)),
      },
      queues: sumBy(samples, 'llmgw_admission_queue_depth', 'band'),
      rejected: sumBy(samples, 'llmgw_admission_rejected_total', 'band'),
      cache: sumBy(samples, 'llmgw_cache_decision_total', 'decision'),
    });
  });
}
