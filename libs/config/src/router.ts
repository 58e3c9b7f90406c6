import { z } from 'zod';
import { profilesConfigSchema } from '@llmgw/scheduling';
import { duration, engineKind, engineMetricOverrides, listenAddress, logLevel } from './load';
import { routerTenancySchema } from './router-tenancy';
import { admissionCoreShape } from './admission-core';
import { clientTlsSchema } from './tls';
import { providerSchema } from './catalog-sources';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

// queue_ttl above is the router's own key; the rest of the core settings are shared with the service.
const { queue_ttl: _queueTtl, ...admissionCoreShapeForRouter } = admissionCoreShape;

/**
 * The router's configuration (docs/configuration.md#router: the router block, the listeners,
 * models and static endpoints). Parsed once at boot, strict, frozen.
 */

/** One statically configured endpoint (the same facts as an `--endpoint` flag). */
export const staticEndpointSchema = z
  .object({
    /** Replica id; also the `x-llmgw-replica` value. */
    name: z.string().min(1),
    url: z.string().url(),
    model: z.string().min(1),
    engine: engineKind.default('vllm'),
    pool: z.string().min(1).default('default'),
    weight: z.number().positive().default(100),
    /** Pool priority: higher is preferred. */
    priority: z.number().int().default(0),
    draining: z.boolean().default(false),
    /** The engine's --scheduling-policy; `priority` makes the router send the band as the request's `priority`. */
    scheduling_policy: z.enum(['fcfs', 'priority']).default('fcfs'),
    /**
     * The engine's batch slots (vLLM/SGLang --max-num-seqs / --max-running-requests, llama.cpp --parallel).
     * Admission takes it as the replica's confirmed capacity instead of learning it from queues.
     */
    max_num_seqs: z.number().int().min(1).optional(),
    /** A file holding the engine's API key (its `--api-key`), sent as `authorization: Bearer`; read once at start. */
    api_key_file: z.string().min(1).optional(),
    /** KV event sockets of the replica (vLLM --kv-events-config), for the tier-2 prefix index. */
    kv_events: z
      .object({
        endpoint: z.string().regex(/^tcp:\/\/\S+:\d+$/, 'tcp://host:port'),
        replay_endpoint: z
          .string()
          .regex(/^tcp:\/\/\S+:\d+$/, 'tcp://host:port')
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** An adapter as the router needs it: its name, its llama.cpp scale, and where a vLLM engine finds it when it must be registered at run time. */
const routerAdapterSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1–64 characters of letters, digits and . _ -'),
    scale: z.number().min(0).max(10).default(1),
    /** The adapter's directory on the engine's host: given, the router registers it (`/v1/load_lora_adapter`) on a vLLM replica before first use. */
    path: z.string().min(1).optional(),
  })
  .strict();

const modelSchema = z
  .object({
    name: z.string().min(1),
    aliases: z.array(z.string().min(1)).default([]),
    /** Served by an OpenAI-compatible API elsewhere (docs/models.md, "Providers"); the catalog's shape. */
    provider: providerSchema.optional(),
    fallbacks: z.array(z.string().min(1)).default([]),
    /** Routing profile used unless the request sends `x-llmgw-profile`. */
    routing_profile: z.string().optional(),
    /**
     * LoRA adapters of this base model, in the catalog's order (llama.cpp ids are positions; docs/models.md, "Adapters").
     * Routers reading the placement-scheduler's catalog view learn them from there.
     */
    adapters: z.array(routerAdapterSchema).default([]),
  })
  .strict();

/** The admission seam. The admission helper may extend this sub-schema. */
export const routerAdmissionSchema = z
  .object({
    /** off: pass-through; local: in-process admission-core; remote: the admission service over gRPC. */
    mode: z.enum(['off', 'local', 'remote']).default('off'),
    /** remote: the admission service "host:port"; a comma list names the leader and its standbys. */
    address: z.string().optional(),
    /** How long a request may wait for admission before `ttl`. */
    queue_ttl: duration().default(30_000),
    /** remote: how often the router sends KeepAlive with its leases (well under the service's router_ttl). */
    keepalive_interval: duration().optional(),
    /** remote: how often a degraded router probes the service to go back to it. */
    probe_interval: duration().optional(),
    /** remote: how often the router renews its credits (requests it admits without a round trip); 0 = no credits. */
    credit_interval: duration().default(250),
    /** remote: deadline for Release/KeepAlive/Status calls and for connecting. */
    call_timeout: duration().optional(),
    /** remote: TLS to the service (PEM file paths); cert + key present → mTLS. Plaintext when absent. */
    tls: clientTlsSchema.optional(),
    /** Saturation detector, bands and queue bounds for local mode and the remote fallback (docs/configuration.md#router). */
    ...admissionCoreShapeForRouter,
  })
  .strict();

/** The tenancy seam (auth, limits, usage): defined in router-tenancy.ts by the accounting helper. */
export { routerTenancySchema } from './router-tenancy';

const approxTreeSchema = z
  .object({
    /** Off: the `prefix` scorer sees no tree and decides by load alone (`no_tree`). */
    enabled: z.boolean().default(true),
    /** Below this match ratio the prefix counts as a miss and load decides. */
    cache_threshold: z.number().min(0).max(1).default(0.3),
    /** The balance guard: ignore the prefix when max_load − min_load > this … */
    balance_abs_threshold: z.number().min(0).default(16),
    /** … and max_load > min_load × this. */
    balance_rel_threshold: z.number().min(1).default(1.5),
    /** … or when the best match would hold more than this × its fair share and 2 more than the least loaded (0: off). */
    balance_fair_factor: z.number().min(0).default(3),
    /** Estimated cache per replica, in prompt characters, before its least recently sent prefixes are evicted. */
    max_tree_size: z.number().int().positive().default(2_000_000),
    /** How often eviction runs (lazily, on the next insert). */
    eviction_interval: duration().default(60_000),
    /** Characters per tree chunk (about one 16-token KV block of English text). */
    chunk_chars: z.number().int().min(1).max(4096).default(64),
    /**
     * Share every insert with the other router replicas over Redis pub/sub, so a conversation
     * whose turns reach different routers still finds its replica. Off when no URL is given.
     */
    share: z
      .object({
        redis_url: z.string().optional(),
        key_prefix: z.string().default(DEFAULT_REDIS_KEY_PREFIX),
        /** Also share each router's in-flight count per replica, so every router scores the fleet's load (docs/prefix.md). */
        load: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
  })
  .strict();

const kvEventsSchema = z
  .object({
    enabled: z.boolean().default(false),
    /** Models whose replicas publish KV events; empty = every model with an endpoint naming a KV socket. */
    models: z.array(z.string().min(1)).default([]),
    /** The engines' PYTHONHASHSEED (vLLM derives NONE_HASH from it); must match theirs exactly. */
    hash_seed: z.string().default('0'),
    block_size: z.number().int().positive().default(16),
    /** Tokenizer and chat template used to compute block hashes (the engines' own). */
    tokenizer: z.enum(['llama3']).default('llama3'),
    /** How long a replay request may take before the replica's index is dropped. */
    replay_timeout: duration().default(2000),
    /**
     * A prompt this router (or, shared, another) sent to a replica less than this long ago counts as
     * held there until the replica's own events say more: it covers queueing, prefill and the event's
     * trip, during which the index cannot know yet. 0 = events only.
     */
    pending_window: duration().default(2000),
    /**
     * Worker threads that tokenize and hash requests off the event loop, each loading the tokenizer
     * (a conversation stays on one, so its earlier turns are already keyed there); 0 = on the event
     * loop, the tokenizer loaded before the router listens (docs/prefix.md#block-hashes).
     */
    tokenize_workers: z.number().int().min(0).max(16).default(1),
    /** Jobs one worker may hold; a request past it is keyed for tier 1 only. */
    tokenize_queue: z.number().int().positive().default(64),
    /** The longest a request waits for its block hashes; past it, it is keyed for tier 1 only. */
    tokenize_timeout: duration().default(50),
  })
  .strict();

/**
 * Where a role reads its endpoints: the static list in its config, what the placement-scheduler publishes
 * in Redis, or (`memory`, inside one process: `llmgw up`) what a placement-scheduler of the same process
 * publishes under the same key_prefix.
 */
export const endpointSourceShape = {
  kind: z.enum(['static', 'redis', 'memory']).default('static'),
  redis_url: z.string().optional(),
  key_prefix: z.string().default(DEFAULT_REDIS_KEY_PREFIX),
};

export const routerConfigSchema = z
  .object({
    /** Client API listener, "host:port" (":8080" = all interfaces). */
    listen: listenAddress().default('127.0.0.1:8080'),
    /**
     * Sockets the client listener binds on its port (SO_REUSEPORT, all in this process): Node takes
     * one new connection per socket per event-loop turn, so a busy router with one socket leaves a
     * burst of new connections waiting in the kernel (docs/performance.md, "One connection per
     * event-loop turn"). 1 = a single socket.
     */
    listen_sockets: z.number().int().min(1).max(64).default(8),
    /**
     * The cluster engine key file (the placement-scheduler's `engine_key_file`): the router derives
     * each placed replica's engine secret from it and presents it to the engine. Required when
     * published endpoints say `auth: replica-key`.
     */
    engine_key_file: z.string().min(1).optional(),
    /** Metrics, /healthz, /readyz. */
    admin_listen: listenAddress().default('127.0.0.1:9090'),
    log_level: logLevel(),
    /** On shutdown, how long running requests may take to finish before their connections are cut. */
    shutdown_grace: duration().default(10_000),
    /**
     * On shutdown, how long /readyz answers 503 while the router keeps serving, before its listener
     * closes: set it above the load balancer's detection time (health-check interval × fall count).
     */
    drain_delay: duration().default(0),
    /** Largest accepted request body, bytes. */
    body_limit_bytes: z
      .number()
      .int()
      .positive()
      .default(4 * 1024 * 1024),
    /**
     * A body over body_limit_bytes is still read (and dropped) up to this many bytes, so that a
     * client still sending sees its 413 instead of a reset connection; beyond it the connection is cut.
     */
    body_discard_limit_bytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
    /** Deepest JSON nesting (arrays and objects) accepted in a request body; deeper is refused before parsing. */
    json_max_depth: z.number().int().min(2).max(10_000).default(128),
    /**
     * Engine routes besides the OpenAI ones that are passed through with auth, limits and routing
     * (the body must name a `model`). A route not listed answers 404 saying it is disabled here.
     */
    passthrough_routes: z
      .array(z.enum(['/v1/rerank', '/v1/score', '/tokenize', '/detokenize']))
      .default(['/v1/rerank', '/v1/score', '/tokenize', '/detokenize']),
    scrape_interval: duration().default(2000),
    scrape_timeout: duration().default(1000),
    /** A scrape older than this marks the endpoint stale, even before one fails. */
    stale_after: duration().default(6000),
    inject_usage: z.boolean().default(true),
    retries: z.number().int().min(0).default(2),
    cooldown_seconds: z.number().min(0).default(15),
    endpoint_cache_max_age: duration().default(300_000),
    breaker: z
      .object({
        /** Consecutive failed requests (or 3 failed scrapes) that open the breaker. */
        failure_threshold: z.number().int().positive().default(5),
        /** First open period; doubles on each failed half-open probe. */
        base_backoff: duration().default(1000),
        max_backoff: duration().default(60_000),
      })
      .strict()
      .default({ failure_threshold: 5, base_backoff: 1000, max_backoff: 60_000 }),
    timeouts: z
      .object({
        connect: duration().default(5000),
        first_token: duration().default(60_000),
        total: duration().default(600_000),
        idle: duration().default(30_000),
      })
      .strict()
      .default({ connect: 5000, first_token: 60_000, total: 600_000, idle: 30_000 }),
    /**
     * Most connections open to one endpoint (an endpoint declaring max_num_seqs gets at least that
     * many); requests beyond it wait (llmgw_upstream_waiting). Unset: no bound — one connection per
     * request in flight to the endpoint, which admission and the clients' own connections bound.
     */
    upstream_connections: z.number().int().positive().optional(),
    /** Per-endpoint override of upstream_connections, by endpoint name (size it to the engine's batch capacity). */
    upstream_connections_per_endpoint: z.record(z.string(), z.number().int().positive()).default({}),
    default_profile: z.string().default('chat'),
    /** Routing profiles (docs/scheduling.md), overlaying the built-in chat/batch/long-context/debug; see @llmgw/scheduling. */
    profiles: profilesConfigSchema.default({}),
    prefix: z
      .object({
        /** Tier 0 (docs/prefix.md), for profiles with the `session` scorer (the built-in `chat`; with auth the key is namespaced by project). */
        session_affinity: z
          .object({
            enabled: z.boolean().default(true),
            header: z.string().default('x-session-id'),
            load_factor: z.number().min(1).default(1.25),
          })
          .strict()
          .default({ enabled: true, header: 'x-session-id', load_factor: 1.25 }),
        /** Tier 1 (docs/prefix.md): the approximate prefix tree read by the `prefix` scorer (every built-in profile but debug). */
        approx_tree: approxTreeSchema.prefault({}),
        /** Tier 2 (docs/prefix.md): the precise index from the replicas' KV events (endpoints name their sockets). */
        kv_events: kvEventsSchema.prefault({}),
        /**
         * How much of a prompt both tiers key, in characters (token-id prompts: a quarter as many ids):
         * a longer prompt is matched on its head, so keying a 4 MB body costs what a 64 KiB one does.
         */
        max_prompt_chars: z.number().int().min(1024).default(65_536),
      })
      .strict()
      .prefault({}),
    /** Band of a request without `x-llmgw-band` (and without auth); must be one of `admission.bands`. */
    default_band: z.string().default('gold'),
    tenant_header: z.string().default('x-llmgw-tenant'),
    admission: routerAdmissionSchema.default({ mode: 'off', queue_ttl: 30_000, credit_interval: 250 }),
    tenancy: routerTenancySchema.prefault({}),
    models: z.array(modelSchema).default([]),
    /** Extra alias → model names (also settable with --model-alias a=b). */
    model_aliases: z.record(z.string(), z.string()).default({}),
    endpoints: z.array(staticEndpointSchema).default([]),
    endpoint_source: z
      .object({
        ...endpointSourceShape,
        /** With kind redis or memory: how long a request for an on-demand model with no replica waits before 503 model_loading. */
        on_demand_hold: duration().default(2000),
      })
      .strict()
      .default({ kind: 'static', key_prefix: DEFAULT_REDIS_KEY_PREFIX, on_demand_hold: 2000 }),
    /** Per-engine metric name overrides: engine → contract field → metric name. */
    engine_metrics: engineMetricOverrides(),
  })
  .strict();

export type RouterConfig = z.output<typeof routerConfigSchema>;
export type RouterConfigInput = z.input<typeof routerConfigSchema>;
export type StaticEndpointConfig = z.output<typeof staticEndpointSchema>;

/** Slices of the router configuration, named for the part of the router that reads each (docs/router.md). */
export type RouterAdmissionConfig = RouterConfig['admission'];
export type RouterTenancyConfig = RouterConfig['tenancy'];
export type RouterPrefixConfig = RouterConfig['prefix'];
export type RouterModelConfig = RouterConfig['models'][number];
