import { untilSignal } from '@llmgw/cli';
import type { AddressInfo } from 'node:net';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { parseConfig, simEngineConfigSchema, type SimEngineConfig, type SimEngineConfigInput } from '@llmgw/config';
import { createLogger, type Logger, logListening } from '@llmgw/observability';
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
 * Starts one sim-engine. Once it listens it logs one line
 * `{"msg":"listening","url":"http://127.0.0.1:PORT"}` (the convention
 * libs/testing's spawnRole waits for).
 */
export async function start(options: StartOptions = {}): Promise<SimEngineHandle> {
  const { logDestination, logger, ...raw } = options;
  const config = parseConfig(simEngineConfigSchema, raw, 'sim-engine options');
  const log = logger ?? createLogger({ service: 'sim-engine', level: config.logLevel, destination: logDestination });
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
  const server = createSimServer(config, engine, log);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept backlog: benchmarks open ~1000 connections at once, and a
    // dropped SYN costs a 1 s retransmit.
    server.listen({ port: config.port, host: config.host, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let kvEvents: KvPublisher | undefined;
  try {
    kvEvents = config.kvEventsConfig ? await KvPublisher.start(engine.kvEvents, { ...config.kvEventsConfig, blockSize: config.blockSize, hashSeed: config.hashSeed, log }) : undefined;
  } catch (e) {
    engine.close();
    server.close();
    throw new Error(`kv events: cannot bind ${config.kvEventsConfig?.endpoint}: ${(e as Error).message}`);
  }
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  // The listening line is the readiness signal (spawnRole waits for it).
  logListening(log, {
    url,
    models: config.models,
    dialect: config.dialect,
    ...(kvEvents ? { kv_events: { endpoint: kvEvents.endpoint, replay_endpoint: kvEvents.replayEndpoint } } : {}),
  });
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    config,
    engine,
    kvEvents,
    close() {
      closing ??= new Promise<void>((resolve) => {
        engine.close();
        kvEvents?.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
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

function collectModels(v: string, prev: string[] | undefined): string[] {
  return [...(prev ?? []), ...v.split(',').map((s) => s.trim()).filter(Boolean)];
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
    .option('--prefix-cache-blocks <n>', 'LRU capacity of the prefix cache in blocks (0 = no prefix caching)', int('--prefix-cache-blocks'), d.prefixCacheBlocks)
    .option('--prefill-tps <n>', 'prompt tokens per second per request (0 = instantaneous)', float('--prefill-tps'), d.prefillTps)
    .option('--decode-tps <n>', 'tokens per second of a request running alone (0 = instantaneous)', float('--decode-tps'), d.decodeTps)
    .option('--batch-contention <x>', 'per-token latency × (1 + x × (running − 1))', float('--batch-contention'), d.batchContention)
    .option('--scheduling-policy <policy>', 'fcfs | priority (as vLLM: request `priority`, lower first, ties by arrival; preempts the lowest priority)', d.schedulingPolicy)
    .option('--fail-rate <p>', 'fraction of requests answered with HTTP 500 (seeded)', float('--fail-rate'), d.failRate)
    .option('--seed <n>', 'seed for generated text, failures and ids (deterministic runs)', int('--seed'), d.seed)
    .option('--dialect <engine>', 'metric vocabulary on /metrics: vllm | sglang | llamacpp', d.dialect)
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
        'Endpoints: POST /v1/chat/completions, /v1/completions, /v1/embeddings, /reset_prefix_cache; GET /v1/models, /health, /metrics.',
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

export async function main(argv: string[]): Promise<number> {
  const cmd = buildCommand();
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  const o = cmd.opts();
  if (o.listen !== undefined) {
    const m = /^(.*):(\d+)$/.exec(String(o.listen));
    if (!m) {
      process.stderr.write(`llmgw sim-engine: --listen must be [host]:port, got "${o.listen}"\n`);
      return 2;
    }
    o.host = m[1].replace(/^\[(.*)\]$/, '$1') || o.host;
    o.port = Number(m[2]);
  }
  let handle: SimEngineHandle;
  try {
    handle = await start({
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
      maxTokensDefault: o.maxTokensDefault,
      bodyLimitBytes: o.bodyLimitBytes,
      embeddingDim: o.embeddingDim,
      logLevel: o.logLevel,
      tokenizer: o.tokenizer,
      hashSeed: o.hashSeed,
      kvEventsConfig: o.kvEventsConfig === undefined ? undefined : kvEventsFromJson(String(o.kvEventsConfig)),
    });
  } catch (e) {
    process.stderr.write(`llmgw sim-engine: ${(e as Error).message}\n`);
    return 2;
  }
  await untilSignal(() => handle.close());
  return 0;
}
