import { z } from 'zod';
import { insecureFlag, serverTlsSchema } from './tls';
import { duration, engineMetricOverrides, listenAddress, logLevel } from './load';
import { endpointSourceShape, staticEndpointSchema } from './router';
import { admissionCoreShape, uniqueBands } from './admission-core';
import { DEFAULT_REDIS_KEY_PREFIX } from '@llmgw/contracts';

/**
 * The admission service's configuration (`llmgw admission`). Parsed once at
 * boot, strict, frozen.
 */
export const admissionServiceConfigSchema = z
  .object({
    /** gRPC listener "host:port"; port 0 = any free port. */
    listen: listenAddress().default('127.0.0.1:7070'),
    /** Metrics, /healthz, /readyz. */
    admin_listen: listenAddress().default('127.0.0.1:9091'),
    log_level: logLevel(),
    /** Leader-lock owner id; defaults to hostname-pid-random. */
    instance_id: z.string().min(1).optional(),
    /** TLS material (PEM file paths); mTLS with role checks when client_ca is set (docs/security.md). */
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
    leader: z
      .object({
        /** Redis holding the leader lock; absent = in-process lock (a single instance). */
        redis_url: z.string().optional(),
        key_prefix: z.string().default(DEFAULT_REDIS_KEY_PREFIX),
        name: z.string().min(1).default('admission'),
        /** Lock lifetime without renewal: the longest a failover takes. */
        lock_ttl: duration().default(5000),
      })
      .strict()
      .default({ key_prefix: DEFAULT_REDIS_KEY_PREFIX, name: 'admission', lock_ttl: 5000 }),
    /** A router silent (no KeepAlive) for this long loses all its leases. */
    router_ttl: duration().default(15_000),
    /** How long a router's credit stays reserved after each renewal (routers use it for half of that). */
    credit_ttl: duration().default(1500),
    /**
     * Largest credit per router and pool (requests admitted without a round trip); 0 = no credits.
     * Each credit is sized from the router's demand below it (docs/admission.md, "Credits: no round
     * trip when there is nothing to decide"), so a large cap reserves nothing for an idle router.
     */
    credit_max: z.number().int().min(0).default(4096),
    scrape_interval: duration().default(1000),
    scrape_timeout: duration().default(1000),
    endpoints: z.array(staticEndpointSchema).default([]),
    endpoint_source: z.object(endpointSourceShape).strict().default({ kind: 'static', key_prefix: DEFAULT_REDIS_KEY_PREFIX }),
    engine_metrics: engineMetricOverrides(),
    ...admissionCoreShape,
  })
  .strict()
  .superRefine((c, ctx) => uniqueBands(c.bands, ctx));

export type AdmissionServiceConfig = z.output<typeof admissionServiceConfigSchema>;
export type AdmissionServiceConfigInput = z.input<typeof admissionServiceConfigSchema>;
