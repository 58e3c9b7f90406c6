import { Command, InvalidArgumentError } from 'commander';
import { simEngineConfigSchema, type SimEngineConfig, type SimEngineConfigInput } from '@llmgw/config';
import type { Logger } from '@llmgw/observability';
import { defineService, runCommandLine, startService } from '@llmgw/service';
import { SimEngine } from './engine';
import { createSimServer } from './server';
import { KvPublisher } from './kv-publisher';

export { SimEngine } from './engine';
export type { KvEvent, KvEventBatch } from './kv-events';

export interface SimEngineHandle {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  config: SimEngineConfig;
  engine: SimEngine;
  /** The KV event publisher when `kvEventsConfig` is set (bound addresses, test hooks). */
  kvEvents?: KvPublisher;
  close(): Promise<void>;
}

export interface StartOptions extends SimEngineConfigInput {
  /** Log destination (tests); defaults to stdout. */
  logDestination?: NodeJS.WritableStream;
  logger?: Logger;
}

/**
 * The sim-engine on the service host. Its OpenAI server is its one listener,
 * and its /metrics is served there in the engine's dialect (as vLLM does;
 * engine-metrics scrapes it there), so it has no admin listener. Stopping it
 * cuts running streams at once, as stopping an engine process does.
 */
export function simEngineService() {
  return defineService({
    name: 'sim-engine',
    schema: simEngineConfigSchema,
    settings: (c) => ({ log_level: c.logLevel, drain_deadline: 0 }),
    async start(ctx): Promise<Omit<SimEngineHandle, 'close'>> {
      const config = ctx.config;
      const log = ctx.log;
      const engine = new SimEngine({
        maxNumSeqs: config.maxNumSeqs,
        numGpuBlocks: config.numGpuBlocks,
        blockSize: config.blockSize,
        prefixCacheBlocks: config.prefixCacheBlocks,
        prefillTps: config.prefillTps,
        decodeTps: config.decodeTps,
        batchContention: config.batchContention,
        schedulingPolicy: config.schedulingPolicy,
      });
      ctx.onClose('engine', () => engine.close());
      const server = createSimServer(config, engine, log);
      // A deep accept backlog: benchmarks open ~1000 connections at once, and a
      // dropped SYN costs a 1 s retransmit.
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      const url = await ctx.listenHttp('http', server, `${host}:${config.port}`, { backlog: 4096 });
      let kvEvents: KvPublisher | undefined;
      try {
        kvEvents = config.kvEventsConfig
          ? await KvPublisher.start(engine.kvEvents, { ...config.kvEventsConfig, blockSize: config.blockSize, hashSeed: config.hashSeed, log })
          : undefined;
      } catch (e) {
        throw new Error(`kv events: cannot bind ${config.kvEventsConfig?.endpoint}: ${(e as Error).message}`);
      }
      if (kvEvents) ctx.onClose('kv events', () => kvEvents.close());
      // The listening line is the readiness signal (spawnRole waits for it).
      ctx.describe({
        models: config.models,
        dialect: config.dialect,
        ...(kvEvents ? { kv_events: { endpoint: kvEvents.endpoint, replay_endpoint: kvEvents.replayEndpoint } } : {}),
      });
      return { url, port: Number(new URL(url).port), config, engine, kvEvents };
    },
  });
}

/**
 * Starts one sim-engine. Once it listens it logs one line
 * `{"msg":"listening","url":"http://127.0.0.1:PORT"}` (the convention
 * libs/testing's spawnRole waits for).
 */
export async function start(options: StartOptions = {}): Promise<SimEngineHandle> {
  const { logDestination, logger, ...raw } = options;
  const running = await startService(simEngineService(), { config: raw, log: logger, logDestination, configSource: 'sim-engine options' });
  return { ...running.service, close: () => running.close() };
}

function int(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n)) throw new InvalidArgumentError(`${name} must be an integer`);
    return n;
  };
}

function float(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n)) throw new InvalidArgumentError(`${name} must be a number`);
    return n;
  };
}

/** vLLM's `--lora-modules name=path …` and SGLang's `--lora-paths name=path …` (each value may also hold several, space-separated). */
function loraModules(values: string[], flag = '--lora-modules'): Array<{ name: string; path: string }> {
  return values
    .flatMap((v) => v.split(/\s+/).filter(Boolean))
    .map((m) => {
      const i = m.indexOf('=');
      if (i <= 0 || i === m.length - 1) throw new InvalidArgumentError(`${flag}: "${m}" is not name=path`);
      return { name: m.slice(0, i), path: m.slice(i + 1) };
    });
}

function collectModels(v: string, prev: string[] | undefined): string[] {
  return [
    ...(prev ?? []),
    ...v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

export function buildCommand(): Command {
  const d = simEngineConfigSchema.parse({});
  return new Command('llmgw sim-engine')
    .description('A fake OpenAI-compatible inference engine with vLLM-style /metrics, continuous batching, KV blocks and prefix caching.')
    .option('--host <addr>', 'address to listen on', d.host)
    .option('--port <n>', 'port to listen on (0 = any free port)', int('--port'), d.port)
    .option('--listen <[host]:port>', 'host and port in one (":8001" = --host 127.0.0.1 --port 8001); overrides both')
    .option('--model <names>', `served model name; repeatable or comma-separated; the first labels /metrics (default: ${d.models.join(',')})`, collectModels)
    .option('--max-model-len <n>', 'maximum context (prompt + max_tokens) in tokens', int('--max-model-len'), d.maxModelLen)
    .option('--max-num-seqs <n>', 'maximum sequences in the running batch', int('--max-num-seqs'), d.maxNumSeqs)
    .option('--num-gpu-blocks <n>', 'KV cache size in 16-token blocks', int('--num-gpu-blocks'), d.numGpuBlocks)
    .option(
      '--prefix-cache-blocks <n>',
      'LRU capacity of the prefix cache in blocks (0 = no prefix caching)',
      int('--prefix-cache-blocks'),
      d.prefixCacheBlocks,
    )
    .option('--prefill-tps <n>', 'prompt tokens per second per request (0 = instantaneous)', float('--prefill-tps'), d.prefillTps)
    .option('--decode-tps <n>', 'tokens per second of a request running alone (0 = instantaneous)', float('--decode-tps'), d.decodeTps)
    .option('--batch-contention <x>', 'per-token latency × (1 + x × (running − 1))', float('--batch-contention'), d.batchContention)
    .option('--api-key <key>', 'require "Authorization: Bearer <key>" on /v1/* (as vLLM; default: $VLLM_API_KEY); /health and /metrics stay open')
    .option(
      '--scheduling-policy <policy>',
      'fcfs | priority (as vLLM: request `priority`, lower first, ties by arrival; preempts the lowest priority)',
      d.schedulingPolicy,
    )
    .option('--fail-rate <p>', 'fraction of requests answered with HTTP 500 (seeded)', float('--fail-rate'), d.failRate)
    .option('--seed <n>', 'seed for generated text, failures and ids (deterministic runs)', int('--seed'), d.seed)
    .option('--dialect <engine>', 'metric vocabulary on /metrics: vllm | sglang | llamacpp', d.dialect)
    .option('--max-loras <n>', 'LoRA adapters in GPU slots at once (as vLLM); 0 = no LoRA', int('--max-loras'), d.maxLoras)
    .option('--enable-lora', 'as vLLM: serve LoRA adapters (one slot unless --max-loras)')
    .option('--lora-modules <name=path...>', 'as vLLM: adapters registered at start', (v: string, prev: string[] | undefined) => [...(prev ?? []), v])
    .option(
      '--lora <path>',
      'as llama.cpp: an adapter loaded at start (repeatable; ids in order), applied per request',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option('--lora-init-without-apply', 'as llama.cpp: adapters start at scale 0')
    .option(
      '--lora-paths <name=path...>',
      'as SGLang: adapters registered at start, named per request by `lora_path`',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option('--max-loras-per-batch <n>', 'as SGLang: adapters in GPU slots at once (with --lora-paths)', int('--max-loras-per-batch'), d.maxLorasPerBatch)
    .option('--lora-load-ms <ms>', 'time to load an adapter into a slot', float('--lora-load-ms'), d.loraLoadMs)
    .option('--max-tokens-default <n>', 'tokens generated when a request sets no max_tokens', int('--max-tokens-default'), d.maxTokensDefault)
    .option('--body-limit-bytes <n>', 'request bodies above this size get HTTP 413', int('--body-limit-bytes'), d.bodyLimitBytes)
    .option('--embedding-dim <n>', 'dimensions of /v1/embeddings vectors', int('--embedding-dim'), d.embeddingDim)
    .option('--log-level <level>', 'fatal | error | warn | info | debug | trace | silent', d.logLevel)
    .option('--tokenizer <kind>', 'prompt tokenization: simple (4 chars per token) | llama3 (real tokenizer and chat template)', d.tokenizer)
    .option('--hash-seed <seed>', "the engine's PYTHONHASHSEED for KV block hashes (vLLM's NONE_HASH)", d.hashSeed)
    .option(
      '--kv-events-config <json>',
      'publish KV events as vLLM does: {"enable_kv_cache_events":true,"endpoint":"tcp://*:5557","replay_endpoint":"tcp://*:5558","topic":"","buffer_steps":10000}',
    )
    .addHelpText(
      'after',
      '\nZero-latency throughput settings: --prefill-tps 0 --decode-tps 0.\n' +
        'Endpoints: POST /v1/chat/completions, /v1/completions, /v1/embeddings, /reset_prefix_cache; GET /v1/models, /health, /metrics, /sim/priorities (requests by body `priority`), /sim/requests (the engine view of requests with an x-request-id).',
    )
    .exitOverride();
}

/** vLLM's `--kv-events-config` JSON (KVEventsConfig keys) as sim-engine config; undefined when events are off. */
export function kvEventsFromJson(json: string): StartOptions['kvEventsConfig'] {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`--kv-events-config is not JSON: ${(e as Error).message}`);
  }
  const known = new Set(['enable_kv_cache_events', 'publisher', 'endpoint', 'replay_endpoint', 'buffer_steps', 'hwm', 'max_queue_size', 'topic']);
  const unknown = Object.keys(o).filter((k) => !known.has(k));
  if (unknown.length) throw new Error(`--kv-events-config: unknown keys ${unknown.join(', ')}`);
  if (o.enable_kv_cache_events !== true || o.publisher === 'null') return undefined;
  if (o.publisher !== undefined && o.publisher !== 'zmq') throw new Error('--kv-events-config: publisher must be "zmq" or "null"');
  return {
    ...(o.endpoint !== undefined ? { endpoint: String(o.endpoint) } : {}),
    ...(o.replay_endpoint != null ? { replayEndpoint: String(o.replay_endpoint) } : {}),
    ...(o.topic !== undefined ? { topic: String(o.topic) } : {}),
    ...(o.buffer_steps !== undefined ? { bufferSteps: Number(o.buffer_steps) } : {}),
  };
}

/** `llmgw sim-engine ...`: any failure to start (a bad flag, a port taken) is exit status 2. */
export function main(argv: string[]): Promise<number> {
  return runCommandLine(argv, simEngineService(), {
    command: buildCommand(),
    usageStatus: 2,
    configErrors: [Error],
    apply(o: Record<string, any>, input) {
      if (o.listen !== undefined) {
        const m = /^(.*):(\d+)$/.exec(String(o.listen));
        if (!m) throw new Error(`--listen must be [host]:port, got "${o.listen}"`);
        o.host = m[1].replace(/^\[(.*)\]$/, '$1') || o.host;
        o.port = Number(m[2]);
      }
      Object.assign(input, {
        host: o.host,
        port: o.port,
        models: o.model,
        maxModelLen: o.maxModelLen,
        maxNumSeqs: o.maxNumSeqs,
        numGpuBlocks: o.numGpuBlocks,
        prefixCacheBlocks: o.prefixCacheBlocks,
        prefillTps: o.prefillTps,
        decodeTps: o.decodeTps,
        batchContention: o.batchContention,
        schedulingPolicy: o.schedulingPolicy,
        failRate: o.failRate,
        seed: o.seed,
        dialect: o.dialect,
        maxLoras: o.maxLoras,
        loraLoadMs: o.loraLoadMs,
        loraModules: loraModules(o.loraModules ?? []),
        enableLora: o.enableLora === true,
        lora: o.lora ?? [],
        loraInitWithoutApply: o.loraInitWithoutApply === true,
        loraPaths: loraModules(o.loraPaths ?? [], '--lora-paths'),
        maxLorasPerBatch: o.maxLorasPerBatch,
        maxTokensDefault: o.maxTokensDefault,
        bodyLimitBytes: o.bodyLimitBytes,
        embeddingDim: o.embeddingDim,
        logLevel: o.logLevel,
        tokenizer: o.tokenizer,
        hashSeed: o.hashSeed,
        // As vLLM: the flag wins, else VLLM_API_KEY (how the node-agent passes it, off the command line).
        apiKey: o.apiKey ?? (process.env.VLLM_API_KEY || undefined),
        kvEventsConfig: o.kvEventsConfig === undefined ? undefined : kvEventsFromJson(String(o.kvEventsConfig)),
      });
    },
  });
}
