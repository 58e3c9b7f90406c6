import { z } from 'zod';
import { duration, listenAddress, logLevel } from './load';
import { insecureFlag, serverTlsSchema } from './tls';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

/**
 * The inventory's configuration (`llmgw inventory`, docs/inventory.md).
 * Parsed once at boot, strict, frozen.
 */
export const inventoryConfigSchema = z
  .object({
    /** Fleet-facing gRPC port (AgentService): node agents dial in here. */
    agent_listen: listenAddress().default('0.0.0.0:7443'),
    /** Internal gRPC port: InventoryService, for the placement-scheduler (whose ControlService `llmgw ctl` uses). */
    listen: listenAddress().default('127.0.0.1:7073'),
    /** Metrics, /healthz, /readyz. */
    admin_listen: listenAddress().default('127.0.0.1:9095'),
    log_level: logLevel(),
    /** This instance's id (command routing, llmgw_agent_connected); default hostname-pid-random. */
    instance_id: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,100}$/, 'letters, digits, . _ - only')
      .optional(),
    /** mTLS of the fleet port: the server certificate and the CA that signs node certificates (CN = node id). */
    agent_tls: serverTlsSchema.optional(),
    /** TLS (mTLS with role checks when client_ca is set) of the internal port. */
    tls: serverTlsSchema.optional(),
    /** Plaintext (or TLS without client certificates) on a non-loopback address is refused unless this is true. */
    insecure: insecureFlag(),
    /** Heartbeats missed before a node is Unreachable (default 3; docs/wire-contracts.md#the-agent-stream). */
    missed_heartbeats: z.number().int().min(1).max(100).default(3),
    /** A node unseen this long is Lost; its shards count as failed (default 60 s; docs/wire-contracts.md#the-agent-stream). */
    lost_after: duration().default(60_000),
    /** A Lost node unseen this long is forgotten (NodeRemoved). */
    forget_after: duration().default(86_400_000),
    /** Liveness check period. */
    sweep_interval: duration().default(1000),
    /** The longest a shard command waits for the agent's Ack. */
    command_timeout: duration().default(10_000),
    /** How long an acknowledged command id is remembered for idempotent repeats. */
    command_record_ttl: duration().default(600_000),
    /** The most shards one Register or Heartbeat may list; more ends the agent's stream with INVALID_ARGUMENT. */
    max_shards_per_node: z.number().int().min(1).max(100_000).default(1024),
    /** The largest gRPC message the internal port accepts, bytes (RESOURCE_EXHAUSTED beyond). */
    max_message_bytes: z
      .number()
      .int()
      .min(65_536)
      .max(268_435_456)
      .default(16 * 1024 * 1024),
    /**
     * The largest message an agent may send on the fleet port, bytes (RESOURCE_EXHAUSTED beyond,
     * refused from its length before it is decoded: decoding a 2 MB heartbeat held the event loop
     * about 200 ms). 1 MiB holds a Register or Heartbeat of max_shards_per_node ordinary shards and
     * a 64 KiB log chunk with room to spare.
     */
    agent_max_message_bytes: z
      .number()
      .int()
      .min(65_536)
      .max(268_435_456)
      .default(1024 * 1024),
    /** Events kept for resumed watches (per instance, and in the Redis stream). */
    watch_history: z.number().int().min(100).max(10_000_000).default(100_000),
    /** Shared state for several instances and durable cordon/drain intent; absent = one in-process instance. */
    redis: z
      .object({
        url: z.string().min(1),
        key_prefix: z.string().default(DEFAULT_REDIS_KEY_PREFIX),
        /** An instance silent this long is presumed dead (its nodes' commands are refused, not queued). */
        instance_ttl: duration().default(5000),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.agent_tls && !c.agent_tls.client_ca && !c.insecure)
      ctx.addIssue({
        code: 'custom',
        path: ['agent_tls', 'client_ca'],
        message: 'required: agents prove their node id with a client certificate (docs/security.md)',
      });
  });

export type InventoryConfig = z.output<typeof inventoryConfigSchema>;
export type InventoryConfigInput = z.input<typeof inventoryConfigSchema>;
