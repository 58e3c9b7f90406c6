import { resolveMapping, type MappingOverride, type MetricMapping } from './mappings';
import { parsePrometheusText, type ParsedExposition, type Sample } from './parser';
import type { EngineDialect, EngineStats } from './types';

export interface ExtractResult {
  /** Undefined when a mandatory field (running, waiting) is missing. */
  stats: EngineStats | undefined;
  /** Contract violations, one line each; empty when the scrape honours the contract. */
  violations: string[];
  /** Lines the parser could not read (reported, not fatal). */
  junk: number;
}

function seriesOf(parsed: ParsedExposition, names: string[]): { name: string; samples: Sample[] } | undefined {
  for (const name of names) {
    const s = parsed.samples.filter((x) => x.name === name && Number.isFinite(x.value));
    if (s.length > 0) return { name, samples: s };
  }
  return undefined;
}

const sum = (s: Sample[]): number => s.reduce((a, x) => a + x.value, 0);
const splitList = (v: string | undefined): string[] =>
  v
    ? v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : [];

/**
 * Reads the engine metric contract out of a scrape. Several series of one metric
 * (vLLM's `engine` label, several `model_name`s) are summed for counts and
 * counters and averaged for the KV ratio. A violation is returned, never thrown.
 */
export function extractStats(text: string, engine: EngineDialect = 'vllm', overrides?: MappingOverride): ExtractResult {
  return extractFromParsed(parsePrometheusText(text), resolveMapping(engine, overrides));
}

export function extractFromParsed(parsed: ParsedExposition, m: MetricMapping): ExtractResult {
  const violations: string[] = [];
  const running = seriesOf(parsed, m.running);
  const waiting = seriesOf(parsed, m.waiting);
  if (!running) violations.push(`missing mandatory metric for Running: ${m.running.join(' | ') || '(unmapped)'}`);
  if (!waiting) violations.push(`missing mandatory metric for Waiting: ${m.waiting.join(' | ') || '(unmapped)'}`);

  let kvUsage: number | undefined;
  if (m.kvUsage.length > 0) {
    const kv = seriesOf(parsed, m.kvUsage);
    if (!kv) violations.push(`missing metric for KVCacheUsage: ${m.kvUsage.join(' | ')}`);
    else {
      kvUsage = sum(kv.samples) / kv.samples.length;
      if (kvUsage < 0 || kvUsage > 1) {
        violations.push(`KVCacheUsage out of range [0,1]: ${kv.name}=${kvUsage}`);
        kvUsage = Math.min(1, Math.max(0, kvUsage));
      }
    }
  }
  if (!running || !waiting) return { stats: undefined, violations, junk: parsed.junk.length };

  const stats: EngineStats = { running: sum(running.samples), waiting: sum(waiting.samples) };
  if (kvUsage !== undefined) stats.kvUsage = kvUsage;
  const counters: Array<[keyof EngineStats, string[]]> = [
    ['promptTokensTotal', m.promptTokensTotal],
    ['generationTokensTotal', m.generationTokensTotal],
    ['prefixCacheQueriesTotal', m.prefixCacheQueriesTotal],
    ['prefixCacheHitsTotal', m.prefixCacheHitsTotal],
    ['requestsFinishedTotal', m.requestsFinishedTotal],
  ];
  for (const [field, names] of counters) {
    const s = seriesOf(parsed, names);
    if (s) (stats as unknown as Record<string, number>)[field] = sum(s.samples);
  }
  for (const c of m.cacheConfigInfo) {
    const s = parsed.samples.find((x) => x.name === c.metric);
    if (!s) continue;
    const bs = Number(s.labels[c.blockSizeLabel]);
    const nb = Number(s.labels[c.numBlocksLabel]);
    if (Number.isFinite(bs) && bs > 0) stats.blockSize = bs;
    if (Number.isFinite(nb) && nb >= 0 && s.labels[c.numBlocksLabel] !== '') stats.numGpuBlocks = nb;
    break;
  }
  const lora = seriesOf(parsed, m.loraInfo);
  if (lora) {
    // The gauge's value is the update time: the newest series is the current state.
    const latest = lora.samples.reduce((a, b) => (b.value > a.value ? b : a));
    stats.lora = {
      maxLora: Number(latest.labels.max_lora ?? 0) || 0,
      running: splitList(latest.labels.running_lora_adapters),
      waiting: splitList(latest.labels.waiting_lora_adapters),
    };
  }
  return { stats, violations, junk: parsed.junk.length };
}
