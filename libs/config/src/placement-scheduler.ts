import { FACILITY_LEVELS, type FacilityLevel } from '@llmgw/placement';
import { z } from 'zod';
import { duration, listenAddress, logLevel } from './load';
import { clientTlsSchema, insecureFlag, serverTlsSchema } from './tls';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

/**
 * The placement-scheduler's configuration (`llmgw placement-scheduler`,
 * docs/placement.md). Parsed once at boot, strict, frozen. The catalog
 * itself is its own file (`catalog`, libs/config/src/catalog.ts).
 */
export const placementSchedulerConfigSchema = z
  .object({
    /** The model catalog file (YAML; deploy/examples/catalog.yaml). */
    catalog: z.string().min(1),
    /**
     * The cluster engine key (32 random bytes, a 0600 file; the same file on every router). Each
     * replica's engine then requires its own secret derived from it (docs/placement.md, "Engine
     * secrets"). Absent: engines run without a key, reachable by anyone who can reach the node.
     */
    engine_key_file: z.string().min(1).optional(),
    /** gRPC port of the ControlService `llmgw ctl` talks to (its one address: inventory serves none). */
    listen: listenAddress().default('127.0.0.1:7074'),
    /** Metrics, /healthz, /readyz. */
    admin_listen: listenAddress().default('127.0.0.1:9096'),
    log_level: logLevel(),
    /** Leader lock owner id; default hostname-pid-random. */
    instance_id: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,100}$/, 'letters, digits, . _ - only')
      .optional(),
    /** TLS (mTLS with role checks when client_ca is set) of the ControlService port (docs/security.md). */
    tls: serverTlsSchema.optional(),
    /** Plaintext on a non-loopback listen address is refused unless this is true. */
    insecure: insecureFlag(),
    /** The largest gRPC request message the port accepts, bytes (RESOURCE_EXHAUSTED beyond). */
    max_message_bytes: z
      .number()
      .int()
      .min(65_536)
      .max(268_435_456)
      .default(16 * 1024 * 1024),
    /** Inventory's internal gRPC port (InventoryService: the fleet watch, shard commands, logs, node intent). */
    inventory: z
      .object({
        address: z.string().min(1).default('127.0.0.1:7073'),
        /** mTLS towards inventory: CA, and this service's client certificate (role placement-scheduler). */
        tls: clientTlsSchema.optional(),
      })
      .strict()
      .default({ address: '127.0.0.1:7073' }),
    /**
     * Accounting's gRPC port, where operator actions on the ControlService
     * (cordon, uncordon, drain, model targets) are appended to the audit log
     * (AuditLog.AppendAudit) with the operator's identity. Absent: they are
     * in this service's log only.
     */
    accounting: z
      .object({
        address: z.string().min(1),
        /** mTLS towards accounting's AuditLog (role placement-scheduler). */
        tls: clientTlsSchema.optional(),
      })
      .strict()
      .optional(),
    /**
     * The admission service the autoscaler reads (Status: requests queued per
     * model). Absent: no autoscaling; models keep their catalog and target
     * replica counts (docs/capacity.md).
     */
    admission: z
      .object({
        /** host:port; several comma-separated: the leader among them is asked. */
        address: z.string().min(1),
        /** mTLS towards admission (role placement-scheduler). */
        tls: clientTlsSchema.optional(),
      })
      .strict()
      .optional(),
    /**
     * The autoscaler (docs/capacity.md): on the leader, for models whose
     * catalog `scaling.target_waiting_per_replica` is above 0.
     */
    autoscaler: z
      .object({
        /** How often admission is read and a decision made. */
        interval: duration().default(5000),
        /** Waiting per replica is averaged over this window. */
        window: duration().default(60_000),
        /** Least time between two scale-ups. */
        up_cooldown: duration().default(60_000),
        /** Least time after any scale event before a scale-down. */
        down_cooldown: duration().default(120_000),
        /** A replica is taken back only after nothing has waited for this long. */
        quiet_period: duration().default(600_000),
      })
      .strict()
      .default({ interval: 5000, window: 60_000, up_cooldown: 60_000, down_cooldown: 120_000, quiet_period: 600_000 }),
    /**
     * How often the leader compares the stored capacity profiles (read from
     * `accounting`) with the engines running, for
     * llmgw_capacity_profile_stale (docs/capacity.md).
     */
    capacity_check_interval: duration().default(30_000),
    /**
     * Redis for the leader lock, endpoint publication (what routers read),
     * the catalog view and demand, and operator targets. Absent: an
     * in-process lock (one instance only) and nothing published.
     */
    redis: z
      .object({ url: z.string().min(1), key_prefix: z.string().default(DEFAULT_REDIS_KEY_PREFIX) })
      .strict()
      .optional(),
    /**
     * Instead of `redis`, inside one process (`llmgw up`): the same state in
     * this process's memory, shared with the routers and admission whose
     * `endpoint_source` is `{ kind: memory }` with the same key_prefix.
     */
    memory: z
      .object({ key_prefix: z.string().default(DEFAULT_REDIS_KEY_PREFIX) })
      .strict()
      .optional(),
    /** Leader lock TTL: the longest a failover to a standby takes. */
    lock_ttl: duration().default(5000),
    /** Reconcile at least this often (default 5 s; docs/placement.md, "The reconciler"); fleet events trigger passes in between. */
    reconcile_interval: duration().default(5000),
    /** How long a draining replica may finish its requests before it is stopped. */
    drain_timeout: duration().default(30_000),
    /** A placed shard the agent has not reported after this long is failed. */
    report_grace: duration().default(30_000),
    /** Re-placement backoff after a failure: base, doubled per consecutive failure up to max. */
    backoff: z
      .object({ base: duration().default(2000), max: duration().default(120_000) })
      .strict()
      .default({ base: 2000, max: 120_000 }),
    /**
     * The facility as placement sees it (docs/placement.md "Facility"): nodes are located by their
     * agents' `labels` (site, room, rack, pdu, nvlink_domain).
     */
    facility: z
      .object({
        /** Domains nothing new is placed in (maintenance, a cooling fault); what runs there stays. */
        held: z.array(z.object({ level: z.enum(FACILITY_LEVELS as [FacilityLevel, ...FacilityLevel[]]), name: z.string().min(1) }).strict()).default([]),
        /** Power budgets, W: a shard is placed only where its GPUs' power limits keep the rack or PDU within budget. */
        budgets: z.array(z.object({ level: z.enum(['rack', 'pdu']), name: z.string().min(1), watts: z.number().positive() }).strict()).default([]),
        /** Levels a model's replicas are spread over (a scored preference). */
        spread: z.array(z.enum(FACILITY_LEVELS as [FacilityLevel, ...FacilityLevel[]])).default(['rack', 'pdu']),
        /** What a GPU whose power limit is not reported counts for, W. */
        default_gpu_watts: z.number().positive().default(700),
      })
      .strict()
      .default({ held: [], budgets: [], spread: ['rack', 'pdu'], default_gpu_watts: 700 }),
    /** Engine HTTP and rendezvous ports are chosen from this range on each node (inclusive). */
    port_range: z
      .tuple([z.number().int().min(1024).max(65535), z.number().int().min(1024).max(65535)])
      .refine(([a, b]) => a <= b, 'the first port must not exceed the second')
      .default([20000, 20999]),
  })
  .strict()
  .refine((c) => !(c.redis && c.memory), { message: 'set redis or memory, not both: the shared state is in one place', path: ['memory'] });

export type PlacementSchedulerConfig = z.output<typeof placementSchedulerConfigSchema>;
