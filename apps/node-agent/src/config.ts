import { clientMtlsSchema, duration, listenAddress, logLevel, parseConfig, readConfigFile } from '@llmgw/config';
import { z } from 'zod';
import { modelCacheSchema } from './weights/config';

const name = z.string().regex(/^[a-z0-9][a-z0-9.-]{0,62}$/, 'must be [a-z0-9.-], at most 63, starting alphanumeric');
const hcaName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be an HCA device name such as mlx5_0');
const gidPrefix = z.string().regex(/^[0-9a-f]{4}(:[0-9a-f]{4}){3}$/, 'must be four zero-padded lower-case hex groups, e.g. fe80:0000:0000:00a1');

/** agent.yaml (docs/node-agent.md#agentyaml) — every key snake_case; parsed once at boot, strict, frozen. */
export const agentConfigSchema = z
  .object({
    /** The node id; must equal the CN of `tls.cert`. Default: the hostname, lower-cased. */
    node_id: name.optional(),
    /** inventory's fleet-facing address, host:port. */
    server: z
      .string()
      .regex(/^[^\s]+:\d{1,5}$/, 'must be host:port')
      .optional(),
    /** Interface whose IPv4 is the node's management address; NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME. */
    mgmt_interface: z.string().min(1).optional(),
    /** The management address reported to inventory (IP or DNS name); default: mgmt_interface's IPv4, else the first non-loopback IPv4. */
    mgmt_addr: z.string().min(1).optional(),
    /**
     * Where engines listen (HTTP and KV-event sockets). Default: the management address, so an engine
     * is not reachable on other interfaces; "0.0.0.0" binds every interface (engines still require
     * their replica's secret).
     */
    engine_bind_host: z.string().min(1).optional(),
    /** mTLS material (PEM paths). Without it the stream is plaintext: only on a trusted network. */
    tls: clientMtlsSchema.optional(),
    labels: z.record(z.string(), z.string()).default({}),
    /** Explicit fabric labels (recommended, docs/node-agent.md#discovery). */
    fabrics: z.array(z.object({ name, hcas: z.array(hcaName).min(1) }).strict()).default([]),
    /** GID subnet prefix → fabric, for fabrics whose subnet managers set unique prefixes. */
    fabric_prefixes: z
      .record(gidPrefix, name)
      .default({})
      .refine((m) => !('fe80:0000:0000:0000' in m), "OpenSM's default prefix fe80:0000:0000:0000 is the same on every fabric and cannot identify one"),
    /** Engine HTTP and dist-init ports are taken from this range. */
    port_range: z
      .tuple([z.number().int().min(1).max(65535), z.number().int().min(1).max(65535)])
      .default([20000, 20999])
      .refine(([a, b]) => a <= b, 'port_range must be [low, high]'),
    engines: z
      .object({
        vllm: z
          .object({ bin: z.string().min(1).default('vllm'), launch_mode: z.enum(['mp', 'ray']).default('mp'), ray_bin: z.string().min(1).optional() })
          .strict()
          .optional(),
        sglang: z
          .object({ python: z.string().min(1).default('python3') })
          .strict()
          .optional(),
        llamacpp: z
          .object({ bin: z.string().min(1).default('llama-server') })
          .strict()
          .optional(),
        /** Our sim-engine, launched as `node <llmgw> sim-engine …`; `llmgw` defaults to the repository's bin/llmgw.cjs. */
        sim: z
          .object({ node: z.string().min(1).optional(), llmgw: z.string().min(1).optional() })
          .strict()
          .optional(),
      })
      .strict()
      .default({ sim: {} }),
    /** Where the agent keeps its state (one JSON file per shard: pid, pgid, start time, spec). */
    work_dir: z.string().min(1).default('/var/lib/llmgw-agent'),
    /** Where model weights live; discovery reports its free space. Default: work_dir/models. */
    model_cache_dir: z.string().min(1).optional(),
    /** Fetching weights into the cache: free-space floor, bandwidth cap, parallel files (docs/models.md). */
    model_cache: modelCacheSchema,
    /** Overrides the derived GPU class of every GPU. */
    gpu_class: z
      .string()
      .regex(/^[a-z0-9]+-\d+g$/, 'must look like h100-80g')
      .optional(),
    nvidia_smi: z.string().min(1).default('nvidia-smi'),
    sysfs_root: z.string().min(1).default('/sys'),
    /** Simulated GPUs (`8xh100-80g,fabric=ib-a`) instead of nvidia-smi: tests and `llmgw up`. */
    fake_gpus: z.string().min(1).optional(),
    heartbeat_interval: duration().default(5_000),
    stats_interval: duration().default(2_000),
    /** How often a starting shard's /health and /v1/models are polled. */
    health_interval: duration().default(1_000),
    /** SIGTERM → SIGKILL grace when StopShard carries none. */
    stop_grace: duration().default(30_000),
    drain_timeout: duration().default(60_000),
    /**
     * A draining shard counts as drained only once it has drained this long (at most the drain timeout) and a scrape after
     * that finds nothing in flight: the time every router takes to hear the replica is draining, so no request is sent to it
     * after its engine was found idle and stopped.
     */
    drain_settle: duration().default(2_000),
    /** STARTING+LOADING limit when the ShardSpec carries none. */
    startup_timeout: duration().default(1_200_000),
    /** Crashes restarted before a shard is FAILED; 0 = never restart (the control plane rebuilds). */
    max_restarts: z.number().int().min(0).max(100).default(3),
    restart_backoff: duration().default(2_000),
    restart_backoff_max: duration().default(60_000),
    /** Lines of engine output kept per shard for `llmgw ctl logs`. */
    log_ring_lines: z.number().int().min(10).max(100_000).default(2_000),
    log_level: logLevel(),
    /** The admin app (/metrics, /healthz, /readyz); none when absent. */
    admin_listen: listenAddress().optional(),
    /** Longest the agent's own shutdown may take. */
    drain_deadline: duration().default(10_000),
    /** Stop every engine when the agent exits (default: leave them for the next agent to adopt). */
    stop_engines_on_exit: z.boolean().default(false),
  })
  .strict();

export type AgentConfig = z.output<typeof agentConfigSchema>;
export type AgentConfigInput = z.input<typeof agentConfigSchema>;

/** Parses and freezes an agent config object (every issue reported at once). */
export function parseAgentConfig(raw: unknown, source = 'agent config'): AgentConfig {
  return parseConfig(agentConfigSchema, raw, source);
}

/** Reads agent.yaml. */
export function loadAgentConfig(path: string, overrides: Record<string, unknown> = {}): AgentConfig {
  const raw = (readConfigFile(path) ?? {}) as Record<string, unknown>;
  return parseAgentConfig({ ...raw, ...overrides }, path);
}
