import { z } from 'zod';
import { ENGINE_DIALECTS } from '@llmgw/contracts';

/**
 * sim-engine's configuration: every `llmgw sim-engine` flag, in camelCase.
 * Parsed once at boot, strict, frozen. Throughput settings: `prefillTps: 0`
 * and `decodeTps: 0` make prefill and decode instantaneous.
 */
export const simEngineConfigSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    /** 0 = any free port (the bound port is logged in the "listening" line). */
    port: z.number().int().min(0).max(65535).default(8000),
    /** Served model names; the first one labels the metrics. */
    models: z.array(z.string().min(1)).min(1).default(['sim-model']),
    maxModelLen: z.number().int().min(1).default(8192),
    maxNumSeqs: z.number().int().min(1).default(256),
    numGpuBlocks: z.number().int().min(1).default(8192),
    blockSize: z.literal(16).default(16),
    /** LRU capacity of the automatic prefix cache, in blocks; 0 disables prefix caching. */
    prefixCacheBlocks: z.number().int().min(0).default(4096),
    /** Prompt tokens per second per request; 0 = instantaneous prefill. */
    prefillTps: z.number().min(0).default(8000),
    /** Generated tokens per second of one request running alone; 0 = instantaneous decode. */
    decodeTps: z.number().min(0).default(50),
    /** Per-token latency grows by this fraction for every other running sequence. */
    batchContention: z.number().min(0).default(0.02),
    /**
     * vLLM's `--api-key` (or `VLLM_API_KEY`): every /v1/* request must present
     * `Authorization: Bearer <key>` or gets a 401; /health and /metrics stay open, as on vLLM.
     */
    apiKey: z.string().min(1).optional(),
    /** vLLM's --scheduling-policy: fcfs (arrival order) or priority (request `priority`, lower first, ties by arrival). */
    schedulingPolicy: z.enum(['fcfs', 'priority']).default('fcfs'),
    /** Fraction of requests answered with a 500 (seeded). */
    failRate: z.number().min(0).max(1).default(0),
    seed: z.number().int().default(0),
    dialect: z.enum(ENGINE_DIALECTS).default('vllm'),
    /** vLLM's --max-loras: adapters in GPU slots at once; 0 = no LoRA (/v1/load_lora_adapter refused). */
    maxLoras: z.number().int().min(0).max(256).default(0),
    /** Time to load an adapter into a slot, ms. */
    loraLoadMs: z.number().min(0).default(200),
    /** vLLM's --enable-lora: serve adapters; without maxLoras, one slot. */
    enableLora: z.boolean().default(false),
    /** vLLM's --lora-modules: adapters registered at start (name and path). */
    loraModules: z.array(z.object({ name: z.string().min(1).max(256), path: z.string().min(1).max(4096) }).strict()).default([]),
    /** llama.cpp's --lora: adapters loaded at start, ids in this order, applied per request (`lora` field). */
    lora: z.array(z.string().min(1).max(4096)).default([]),
    /** llama.cpp's --lora-init-without-apply: adapters start at scale 0 (a request or POST /lora-adapters applies them). */
    loraInitWithoutApply: z.boolean().default(false),
    /** SGLang's --lora-paths: adapters registered at start (name and path); a request names one in `lora_path`. */
    loraPaths: z.array(z.object({ name: z.string().min(1).max(256), path: z.string().min(1).max(4096) }).strict()).default([]),
    /** SGLang's --max-loras-per-batch: adapters in GPU slots at once when --lora-paths is given (SGLang's default, 8). */
    maxLorasPerBatch: z.number().int().min(1).max(256).default(8),
    /** Tokens generated when the request sets no max_tokens (finish_reason "stop"). */
    maxTokensDefault: z.number().int().min(1).default(16),
    /** Request bodies above this many bytes get a 413. */
    bodyLimitBytes: z
      .number()
      .int()
      .min(1024)
      .default(8 * 1024 * 1024),
    /** Dimensions of /v1/embeddings vectors unless the request asks for fewer. */
    embeddingDim: z.number().int().min(1).default(256),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * Prompt tokenization: `simple` (one token per 4 characters, fast) or `llama3` (the real Llama 3
     * tokenizer and chat template, as vLLM serving a Llama 3 model; needed for KV block hashes a
     * router can reproduce).
     */
    tokenizer: z.enum(['simple', 'llama3']).default('simple'),
    /** Stands in for the engine's PYTHONHASHSEED: seeds vLLM's NONE_HASH in published block hashes. */
    hashSeed: z.string().default('0'),
    /**
     * Publish KV-cache events like vLLM's `--kv-events-config` (ZMQ PUB of msgpack batches, a replay
     * ROUTER socket). Absent: no events. Endpoints are bound here; `tcp://127.0.0.1:0` picks a free port.
     */
    kvEventsConfig: z
      .object({
        endpoint: z
          .string()
          .regex(/^tcp:\/\/\S+:(\d+|\*)$/, 'tcp://host:port')
          .default('tcp://*:5557'),
        replayEndpoint: z
          .string()
          .regex(/^tcp:\/\/\S+:(\d+|\*)$/, 'tcp://host:port')
          .optional(),
        /** Topic frame of every message (llm-d uses `kv@<pod-ip>@<model>`). */
        topic: z.string().default(''),
        /** Batches kept for replay. */
        bufferSteps: z.number().int().min(1).default(10_000),
      })
      .strict()
      .optional(),
  })
  .strict();

export type SimEngineConfig = z.output<typeof simEngineConfigSchema>;
export type SimEngineConfigInput = z.input<typeof simEngineConfigSchema>;
