import type { agentV1 } from '@llmgw/contracts';
import { extractStats, type EngineDialect } from '@llmgw/engine-metrics';
import type { Shard } from './shard';

/** The metrics dialect a shard's engine speaks (sim-engine says which with --dialect). */
export function metricsDialect(s: Shard): EngineDialect {
  if (s.spec.engine === 'sglang' || s.spec.engine === 'llamacpp') return s.spec.engine;
  const i = s.spec.args.indexOf('--dialect');
  const d = i >= 0 ? s.spec.args[i + 1] : undefined;
  return d === 'sglang' || d === 'llamacpp' ? d : 'vllm';
}

/** One leader shard's /metrics as EngineStats (the error field says what went wrong). */
export async function scrapeShard(s: Shard, timeoutMs: number, now: () => number): Promise<agentV1.EngineStats__Output> {
  const base: agentV1.EngineStats__Output = {
    shardId: s.spec.shardId,
    replicaId: s.spec.replicaId,
    endpoint: s.cmd.endpoint ?? '',
    engine: metricsDialect(s),
    scrapedAtMs: 0,
    waiting: 0,
    running: 0,
    lora: null,
    error: '',
  } as agentV1.EngineStats__Output;
  try {
    const res = await fetch(s.cmd.metricsUrl!, { signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    base.scrapedAtMs = now();
    if (!res.ok) return { ...base, error: `GET /metrics answered ${res.status}` };
    const r = extractStats(text, metricsDialect(s));
    if (!r.stats) return { ...base, error: r.violations.join('; ') };
    const st = r.stats;
    return {
      ...base,
      waiting: st.waiting,
      running: st.running,
      kvUsage: st.kvUsage,
      promptTokensTotal: st.promptTokensTotal,
      generationTokensTotal: st.generationTokensTotal,
      prefixCacheQueriesTotal: st.prefixCacheQueriesTotal,
      prefixCacheHitsTotal: st.prefixCacheHitsTotal,
      requestsFinishedTotal: st.requestsFinishedTotal,
      blockSize: st.blockSize,
      numGpuBlocks: st.numGpuBlocks,
      lora: st.lora ?? null,
      error: r.violations.join('; '),
    } as agentV1.EngineStats__Output;
  } catch (e) {
    return { ...base, scrapedAtMs: now(), error: `scrape failed: ${(e as Error).message}` };
  }
}
