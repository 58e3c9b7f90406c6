import { clientTlsSchema, duration, listenAddress, logLevel } from '@llmgw/config';
import { z } from 'zod';

/** Where the portal reaches one gRPC service, with the `portal` role's client certificate (docs/security.md). */
const grpcTarget = z
  .object({
    /** "host:port". */
    address: z.string().min(1),
    /** The CA, and the portal's certificate and key (role `portal`). */
    tls: clientTlsSchema.optional(),
  })
  .strict();

/**
 * The portal's configuration (`llmgw portal`, docs/portal.md). Stateless:
 * sessions, people and links live in accounting; several portals can run
 * behind one load balancer when they share `cookie_secret`.
 */
export const portalConfigSchema = z
  .object({
    /** HTTP listener, "host:port". */
    listen: listenAddress().default('127.0.0.1:8090'),
    /** Metrics, /healthz, /readyz. */
    admin_listen: listenAddress().default('127.0.0.1:9096'),
    log_level: logLevel(),
    /** The URL people reach the portal by; https:// makes every cookie Secure (TLS ends at the load balancer). */
    public_url: z.string().url().optional(),
    /** Signs the CSRF cookie; every portal behind one balancer needs the same (at least 32 characters). Absent = random per process. */
    cookie_secret: z.string().min(32).optional(),
    /** Accounting's gRPC (Accounts, TenancyAdmin, AuditLog). */
    accounting: grpcTarget,
    /** The placement-scheduler's ControlService (nodes, models, drain); absent = no fleet pages. */
    control: grpcTarget.optional(),
    /** A router's base URL `/chat` sends through (the ordinary /v1/chat/completions path). */
    router_url: z.string().url(),
    /** The services' /metrics URLs the traffic page reads (routers, admission); empty = no traffic figures. */
    metrics_urls: z.array(z.string().url()).max(50).default([]),
    /** What the public landing page says this gateway is. */
    title: z.string().min(1).max(100).default('llmgw'),
    /** How long the key `/chat` uses for a person lives (minted for them, stored hashed like every key). */
    chat_key_ttl: duration().default(3_600_000),
  })
  .strict();

export type PortalConfig = z.output<typeof portalConfigSchema>;
export type PortalConfigInput = z.input<typeof portalConfigSchema>;
