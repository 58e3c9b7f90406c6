import { type EngineDialect } from '@llmgw/contracts';
/**
 * The engine's counters and histograms, and their exposition under the real
 * metric names of vLLM, SGLang or llama.cpp (`--dialect`). Rendered by hand:
 * the three vocabularies share one state, and the hot path only bumps numbers.
 */

/** vLLM's bucket bounds (vllm/v1/metrics/loggers.py). */
export const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
export const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];
export const E2E_BUCKETS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];

export class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly bounds: number[]) {
    this.counts = new Array<number>(bounds.length).fill(0);
  }
  observe(v: number): void {
    this.sum += v;
    this.count++;
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) {
      if (v <= b[i]) {
        this.counts[i]++;
        return;
      }
    }
  }
}

export type FinishedReason = 'stop' | 'length' | 'abort';

/**
 * One request's first token as the engine saw it, for requests that carried an
 * `x-request-id` (GET /sim/requests). Times are the engine's own: they show
 * whether a request waited for a batch slot, apart from any time spent before
 * it reached the engine.
 */
export interface RequestLogEntry {
  request_id: string;
  priority: number;
  prompt_tokens: number;
  /** A batch slot was free when it arrived: it did not wait for a running sequence to finish. */
  slot_free_on_arrival: boolean;
  /** Sequences ahead of it in the waiting queue when it arrived. */
  ahead_on_arrival: number;
  /** Arrival to first entry into the running batch, ms. */
  queued_ms: number;
  /** Arrival to first token, ms. */
  ttft_ms: number;
}

/** How many first tokens the request log keeps (the oldest are dropped). */
export const REQUEST_LOG_SIZE = 4096;

/** Everything the engine counts; gauges are read from the engine at render time. */
export class EngineCounters {
  promptTokens = 0;
  generationTokens = 0;
  prefixQueries = 0;
  prefixHits = 0;
  preemptions = 0;
  finished: Record<FinishedReason, number> = { stop: 0, length: 0, abort: 0 };
  /**
   * Generation requests by the `priority` their body carried ("none" when it had none), served
   * as JSON on GET /sim/priorities (not on /metrics, which holds the engine's own names only), so
   * tests can see the band a router carried into the engine.
   */
  readonly byPriority = new Map<string, number>();
  /** The last REQUEST_LOG_SIZE first tokens of requests with an `x-request-id`, oldest first. */
  readonly requestLog: RequestLogEntry[] = [];
  private requestLogHead = 0;
  readonly ttft = new Histogram(TTFT_BUCKETS);
  readonly itl = new Histogram(ITL_BUCKETS);
  readonly e2e = new Histogram(E2E_BUCKETS);
  readonly startedAt = Date.now() / 1000;

  logRequest(e: RequestLogEntry): void {
    if (this.requestLog.length < REQUEST_LOG_SIZE) this.requestLog.push(e);
    else {
      this.requestLog[this.requestLogHead] = e;
      this.requestLogHead = (this.requestLogHead + 1) % REQUEST_LOG_SIZE;
    }
  }

  /** The request log in arrival-of-first-token order, optionally only ids starting with `prefix`. */
  requests(prefix = ''): RequestLogEntry[] {
    const ordered = [...this.requestLog.slice(this.requestLogHead), ...this.requestLog.slice(0, this.requestLogHead)];
    return prefix ? ordered.filter((e) => e.request_id.startsWith(prefix)) : ordered;
  }
}

/** The engine state a scrape shows. */
export interface EngineGauges {
  running: number;
  waiting: number;
  /** 0..1 */
  kvUsage: number;
  usedBlocks: number;
  numGpuBlocks: number;
  blockSize: number;
  maxNumSeqs: number;
  prefixCaching: boolean;
}

function num(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  return Number.isInteger(v) ? `${v}.0` : String(v);
}

function esc(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

class Writer {
  out: string[] = [];
  constructor(private readonly base: string) {}
  family(name: string, type: string, help: string): void {
    this.out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  }
  sample(name: string, value: number, extra = ''): void {
    const labels = [extra, this.base].filter(Boolean).join(',');
    this.out.push(labels ? `${name}{${labels}} ${num(value)}` : `${name} ${num(value)}`);
  }
  gauge(name: string, help: string, value: number): void {
    this.family(name, 'gauge', help);
    this.sample(name, value);
  }
  counter(name: string, help: string, value: number): void {
    this.family(name, 'counter', help);
    this.sample(name, value);
  }
  histogram(name: string, help: string, h: Histogram): void {
    this.family(name, 'histogram', help);
    let cum = 0;
    for (let i = 0; i < h.bounds.length; i++) {
      cum += h.counts[i];
      this.sample(`${name}_bucket`, cum, `le="${num(h.bounds[i])}"`);
    }
    this.sample(`${name}_bucket`, h.count, 'le="+Inf"');
    this.sample(`${name}_count`, h.count);
    this.sample(`${name}_sum`, h.sum);
  }
  text(): string {
    return this.out.join('\n') + '\n';
  }
}

/** Renders one scrape in the dialect's vocabulary. */
export function renderMetrics(
  dialect: EngineDialect,
  model: string,
  g: EngineGauges,
  c: EngineCounters,
  lora?: { maxLora: number; running: string[]; waiting: string[] },
): string {
  if (dialect === 'llamacpp') {
    const w = new Writer('');
    const uptime = Math.max(1e-9, Date.now() / 1000 - c.startedAt);
    w.counter('llamacpp:prompt_tokens_total', 'Number of prompt tokens processed.', c.promptTokens);
    w.gauge('llamacpp:prompt_tokens_seconds', 'Average prompt throughput in tokens/s.', c.promptTokens / uptime);
    w.counter('llamacpp:tokens_predicted_total', 'Number of generation tokens processed.', c.generationTokens);
    w.gauge('llamacpp:predicted_tokens_seconds', 'Average generation throughput in tokens/s.', c.generationTokens / uptime);
    w.gauge('llamacpp:n_busy_slots_per_decode', 'Average number of busy slots per llama_decode() call', g.running);
    w.gauge('llamacpp:requests_processing', 'Number of requests processing.', g.running);
    w.gauge('llamacpp:requests_deferred', 'Number of requests deferred.', g.waiting);
    return w.text();
  }
  if (dialect === 'sglang') {
    const w = new Writer(`model_name="${esc(model)}"`);
    w.counter('sglang:prompt_tokens_total', 'Number of prefill tokens processed.', c.promptTokens);
    w.counter('sglang:generation_tokens_total', 'Number of generation tokens processed.', c.generationTokens);
    const finished = c.finished.stop + c.finished.length + c.finished.abort;
    w.counter('sglang:num_requests_total', 'Number of requests processed.', finished);
    w.gauge('sglang:token_usage', 'The token usage', g.kvUsage);
    w.gauge('sglang:cache_hit_rate', 'The cache hit rate', c.prefixQueries > 0 ? c.prefixHits / c.prefixQueries : 0);
    w.histogram('sglang:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', c.ttft);
    w.histogram('sglang:e2e_request_latency_seconds', 'Histogram of End-to-end request latency in seconds', c.e2e);
    w.histogram('sglang:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', c.itl);
    w.gauge('sglang:num_running_reqs', 'The number of running requests', g.running);
    w.gauge('sglang:num_used_tokens', 'The number of used tokens', g.usedBlocks * g.blockSize);
    w.gauge('sglang:num_queue_reqs', 'The number of requests in the waiting queue', g.waiting);
    w.family('sglang:cache_config_info', 'gauge', 'Information of the cache configuration');
    w.sample('sglang:cache_config_info', 1, `num_pages="${g.numGpuBlocks}",page_size="${g.blockSize}"`);
    return w.text();
  }
  const w = new Writer(`engine="0",model_name="${esc(model)}"`);
  w.family('vllm:cache_config_info', 'gauge', 'Information of the LLMEngine CacheConfig');
  w.sample(
    'vllm:cache_config_info',
    1,
    `block_size="${g.blockSize}",cache_dtype="auto",enable_prefix_caching="${g.prefixCaching ? 'True' : 'False'}",` +
      `gpu_memory_utilization="0.9",num_cpu_blocks="0",num_gpu_blocks="${g.numGpuBlocks}",` +
      `num_gpu_blocks_override="None",prefix_caching_hash_algo="sim"`,
  );
  w.gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', g.running);
  w.gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', g.waiting);
  w.gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', g.kvUsage);
  w.counter('vllm:prefix_cache_queries_total', 'Prefix cache queries, in terms of number of queried tokens.', c.prefixQueries);
  w.counter('vllm:prefix_cache_hits_total', 'Prefix cache hits, in terms of number of cached tokens.', c.prefixHits);
  w.counter('vllm:num_preemptions_total', 'Cumulative number of preemption from the engine.', c.preemptions);
  w.counter('vllm:prompt_tokens_total', 'Number of prefill tokens processed.', c.promptTokens);
  w.counter('vllm:generation_tokens_total', 'Number of generation tokens processed.', c.generationTokens);
  w.family('vllm:request_success_total', 'counter', 'Count of successfully processed requests.');
  for (const r of ['stop', 'length', 'abort'] as const) w.sample('vllm:request_success_total', c.finished[r], `finished_reason="${r}"`);
  w.histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', c.ttft);
  w.histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', c.itl);
  w.histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', c.e2e);
  if (lora) {
    // As vLLM: one sample whose labels carry the adapters, its value the time of the last update.
    w.family('vllm:lora_requests_info', 'gauge', 'Running stats on lora requests.');
    w.sample(
      'vllm:lora_requests_info',
      Date.now() / 1000,
      `max_lora="${lora.maxLora}",running_lora_adapters="${esc(lora.running.join(','))}",waiting_lora_adapters="${esc(lora.waiting.join(','))}"`,
    );
  }
  return w.text();
}
