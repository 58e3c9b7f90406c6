import { z } from 'zod';
import { duration, listenAddress, logLevel } from './load';
import { clientTlsSchema, insecureFlag, serverTlsSchema } from './tls';

/**
 * The placement-scheduler's configuration (`llmgw placement-scheduler`,
 * docs/placement.md). Parsed once at boot, strict, frozen. The catalog
 * itself is its own file (`catalog`, libs/config/src/catalog.ts).
 */
export const placementSchedulerConfigSchema = z
  .object({
    /** The model catalog file (YAML; deploy/examples/catalog.yaml). */
    catalog: z.string().min(1),
    /** gRPC port of the ControlService `llmgw ctl` talks to. */
    listen: listenAddress().default('127.0.0.1:7075'),
    /** Metrics, /healthz, /readyz. */
    admin_listen: listenAddress().default('127.0.0.1:9096'),
    log_level: logLevel(),
    /** Leader lock owner id; default hostname-pid-random. */
    instance_id: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'letters, digits, . _ - only').optional(),
    /** TLS (mTLS with role checks when client_ca is set) of the ControlService port (docs/security.md). */
    tls: serverTlsSchema.optional(),
    /** Plaintext on a non-loopback listen address is refused unless this is true. */
    insecure: insecureFlag(),
    /** Inventory's internal gRPC port (InventoryService and the node half of ControlService). */
    inventory: z
      .object({
        address: z.string().min(1).default('127.0.0.1:7074'),
        /** mTLS towards inventory: CA, and this service's client certificate (role placement-scheduler). */
        tls: clientTlsSchema.optional(),
      })
      .strict()
      .default({ address: '127.0.0.1:7074' }),
    /**
     * Redis for the leader lock, endpoint publication (what routers read),
     * the catalog view and demand, and operator targets. Absent: an
     * in-process lock (one instance only) and nothing published.
     */
    redis: z.object({ url: z.string().min(1), key_prefix: z.string().default('llmgw:') }).strict().optional(),
    /** Leader lock TTL: the longest a failover to a standby takes. */
    lock_ttl: duration().default(5000),
    /** Reconcile at least this often (plan §6.3: 5 s); fleet events trigger passes in between. */
    reconcile_interval: duration().default(5000),
    /** How long a draining replica may finish its requests before it is stopped. */
    drain_timeout: duration().default(30_000),
    /** A placed shard the agent has not reported after this long is failed. */
    report_grace: duration().default(30_000),
    /** Re-placement backoff after a failure: base, doubled per consecutive failure up to max. */
    backoff: z.object({ base: duration().default(2000), max: duration().default(120_000) }).strict().default({ base: 2000, max: 120_000 }),
    /** Engine HTTP and rendezvous ports are chosen from this range on each node (inclusive). */
    port_range: z
      .tuple([z.number().int().min(1024).max(65535), z.number().int().min(1024).max(65535)])
      .refine(([a, b]) => a <= b, 'the first port must not exceed the second')
      .default([20000, 20999]),
  })
  .strict();

export type PlacementSchedulerConfig = z.output<typeof placementSchedulerConfigSchema>;
