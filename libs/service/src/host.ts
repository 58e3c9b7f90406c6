import { randomBytes } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type {
  Server as GrpcServer,
  ServerOptions as GrpcServerOptions,
  ServiceDefinition as GrpcServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { parseListen } from '@llmgw/cli';
import { authorizationInterceptor, createServer, HealthService, type AuthorizationTable } from '@llmgw/grpc';
import type { z } from 'zod';
import { untilSignal } from '@llmgw/cli';
import { ConfigError, parseConfig } from '@llmgw/config';
import { isLlmgwError } from '@llmgw/errors';
import {
  createLogger,
  createRegistry,
  Dependencies,
  logListening,
  PACKAGE_VERSION,
  requestLogger,
  type DependencyMonitor,
  type Logger,
  type Registry,
  type RequestLogFields,
} from '@llmgw/observability';
import type { Redis } from 'ioredis';
import { LeaderElection, MemoryLeaderLock, RedisLeaderLock, type LeaderLock } from '@llmgw/stores';
import { createAdminApp, type ReadinessCheck, type Readiness } from './admin';
import {
  clientTls,
  isLoopbackHost,
  listenGrpc,
  listenHttp,
  serverTls,
  type ClientTlsFiles,
  type ListenHttpOptions,
  type Listener,
  type TlsFiles,
} from './listen';
import type { ClientTlsOptions } from '@llmgw/grpc';
import { Shutdown, type CloseStep } from './shutdown';
import { installTracing, otlpFromEnv } from './tracing';
import { openRedis, type RedisClientOptions } from './redis';

/** What `ctx.leader` needs: the lock's store and timing, and what to do on election and loss. */
export interface LeaderOptions {
  /** The lock lives in this Redis (shared by every instance); absent = in this process only. */
  redisUrl?: string;
  /** Key prefix of the Redis lock (default `llmgw:`). */
  keyPrefix?: string;
  /** Use this lock instead (tests, `llmgw up` sharing one in-process lock between services). */
  lock?: LeaderLock;
  /** How long the lock lives without renewal; failover takes at most this long. */
  ttlMs: number;
  /** Renew / retry period; default ttlMs / 3. */
  intervalMs?: number;
  onElected?: (token: number) => void;
  onLost?: (reason: string) => void;
}

/** What the host needs to know from a service's parsed config. */
export interface HostSettings {
  log_level?: string;
  /** Where the admin app listens; absent = the service has no admin listener. */
  admin_listen?: string;
  /** Longest an ordered shutdown may take before what is left is cut (ms). */
  drain_deadline?: number;
  /** Stable identity of this process (leader locks use it too); generated when absent. */
  instance_id?: string;
}

/**
 * A service: its name, its config schema, how to read the host's settings
 * from that config, and `start`, which builds the service with what the
 * host hands it and returns whatever its callers (tests, `llmgw up`) need.
 */
export interface ServiceDefinition<S extends z.ZodType, H> {
  name: string;
  schema: S;
  settings(config: z.output<S>): HostSettings;
  start(ctx: ServiceContext<z.output<S>>): Promise<H>;
}

/** Identity function that keeps the types of a definition. */
export function defineService<S extends z.ZodType, H>(def: ServiceDefinition<S, H>): ServiceDefinition<S, H> {
  return def;
}

/** What `start` gets: everything but its domain. */
export interface ServiceContext<C> {
  readonly name: string;
  readonly version: string;
  readonly instanceId: string;
  /** Parsed, validated and deeply frozen, once. */
  readonly config: C;
  readonly log: Logger;
  /** The one metrics registry of this service (/metrics). */
  readonly registry: Registry;
  /** The admin app, to add service-specific admin routes before it listens. */
  readonly admin: FastifyInstance;
  /** The child logger for one request. */
  requestLog(fields: RequestLogFields): Logger;
  /** Sets what /readyz answers. Until it is called /readyz says "starting". */
  readiness(check: ReadinessCheck): void;
  /**
   * Registers a shutdown step. Steps run in reverse order (last registered
   * first), after listeners registered later have stopped accepting work.
   */
  onClose(step: string, fn: CloseStep): void;
  /** Listens an HTTP server or fastify app; it stops accepting first on shutdown. Returns its URL. */
  listenHttp(name: string, target: HttpServer | FastifyInstance, address: string, opts?: ListenHttpOptions): Promise<string>;
  /** Binds a gRPC server you built (TLS/mTLS from a config `tls` block; no role checks, no plaintext refusal: prefer `grpcServer`). Returns "host:port". */
  listenGrpc(name: string, server: GrpcServer, address: string, tls?: TlsFiles): Promise<string>;
  /**
   * Creates, secures and listens one gRPC server: its services, gRPC health
   * (grpc.health.v1, SERVING per service until shutdown), TLS from the
   * config's `tls` block, and — with `tls.client_ca` — the caller's
   * certificate role checked per method against `authorize`. Plaintext on a
   * non-loopback address is refused (ConfigError) unless `insecure`.
   */
  grpcServer(name: string, opts: GrpcServerSpec): Promise<GrpcServerHandle>;
  /** Reads a client `tls` block's files (`what`: its config key, for errors). */
  clientTls(files: ClientTlsFiles | undefined, what: string): ClientTlsOptions | undefined;
  /** Extra fields for the one "listening" line the host writes once `start` returns. */
  describe(fields: Record<string, unknown>): void;
  /**
   * A Redis client for one purpose ("endpoint source", "tenancy", …) with the
   * options of its kind (redis.ts), waited for (bounded), its loss and return
   * logged once each (`dependency lost` / `dependency back`), and closed on
   * shutdown after everything registered later (its users) has stopped.
   */
  redis(purpose: string, url: string, opts?: RedisClientOptions): Promise<Redis>;
  /**
   * The monitor of one outside dependency by name ("accounting", "admission",
   * "inventory"): report `lost(err)` / `ok()` from its client, and the host
   * logs one warn line when it is lost and one, with the outage's length, when
   * it is back. The same name gives the same monitor.
   */
  dependency(name: string, fields?: Record<string, unknown>): DependencyMonitor;
  /**
   * A leader election for `name` (the Redis lock when `redisUrl` is given,
   * through `ctx.redis`; else an in-process one), owned by this instance.
   * Not started: call `start()` once the service can act as leader. It is
   * stopped (and the lock released) on shutdown at the latest.
   */
  leader(name: string, opts: LeaderOptions): Promise<LeaderElection>;
}

/** What `ctx.grpcServer` serves and how. */
export interface GrpcServerSpec {
  /** "host:port" (port 0 = any free one). */
  address: string;
  /** The server `tls` block (file paths); absent = plaintext. */
  tls?: TlsFiles;
  /** The config key of `tls`, named in errors ("agent_tls"); default "tls". */
  tlsKey?: string;
  /** The config's top-level `insecure: true`: plaintext allowed on a non-loopback address. */
  insecure?: boolean;
  /** Who may call what (docs/security.md); enforced when `tls.client_ca` is set. */
  authorize: AuthorizationTable;
  services: ReadonlyArray<{ definition: GrpcServiceDefinition; implementation: UntypedServiceImplementation }>;
  /** grpc-js server options over the llmgw defaults (stream limits). */
  options?: GrpcServerOptions;
  /**
   * The largest request message this server accepts, bytes (default 16 MiB,
   * DEFAULT_SERVER_OPTIONS); a bigger one is refused with RESOURCE_EXHAUSTED
   * before any handler runs. Services take it from their config's
   * `max_message_bytes` (docs/configuration.md).
   */
  maxReceiveMessageBytes?: number;
}

export interface GrpcServerHandle {
  /** "host:port" as a client on this machine dials it. */
  address: string;
  server: GrpcServer;
  /** Serving state per service ("" = the whole server). */
  health: HealthService;
}

/** "pkg.Service" from a generated service definition (its methods' paths). */
export function serviceNameOf(def: GrpcServiceDefinition): string {
  const path = Object.values(def)[0]?.path ?? '';
  return /^\/([^/]+)\//.exec(path)?.[1] ?? '';
}

export interface StartServiceOptions {
  /** Raw config to parse, or an already parsed (frozen) one. */
  config: unknown;
  /** Named in config errors: the file or "command line". */
  configSource?: string;
  /** Use this logger (tests capture lines); otherwise one is made from log_level. */
  log?: Logger;
  logDestination?: NodeJS.WritableStream;
  /** Read once at start (OTEL_EXPORTER_OTLP_*); defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface RunningService<H, C = unknown> {
  readonly name: string;
  readonly instanceId: string;
  readonly log: Logger;
  readonly registry: Registry;
  readonly config: C;
  /** The service's own handle, as `start` returned it. */
  readonly service: H;
  /** The first listener's URL (the one spawnRole and `llmgw up` report). */
  readonly url?: string;
  /** Every listener by name, the admin one as "admin". */
  readonly urls: Readonly<Record<string, string>>;
  readonly adminUrl?: string;
  /** The admin app (tests: `admin.inject`). */
  readonly admin: FastifyInstance;
  /** What /readyz would answer now. */
  ready(): Promise<Readiness>;
  /** Ordered shutdown within the drain deadline; idempotent. */
  close(): Promise<void>;
}

export const DEFAULT_DRAIN_DEADLINE_MS = 10_000;

/** "host-pid-random": unique per process, readable in logs. */
export function newInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * Starts a service: config parsed once, logger, registry, tracing, `start`,
 * admin app on its listener, the "listening" line. On failure everything
 * started so far is stopped and the error rethrown (ConfigError for config).
 */
export async function startService<S extends z.ZodType, H>(def: ServiceDefinition<S, H>, opts: StartServiceOptions): Promise<RunningService<H, z.output<S>>> {
  const config = (Object.isFrozen(opts.config) ? opts.config : parseConfig(def.schema, opts.config, opts.configSource ?? `${def.name} options`)) as z.output<S>;
  const settings = def.settings(config);
  const instanceId = settings.instance_id ?? newInstanceId();
  const version = PACKAGE_VERSION;
  const log = opts.log ?? createLogger({ service: def.name, version, instanceId, level: settings.log_level, destination: opts.logDestination });
  const registry = createRegistry(def.name, { defaultMetrics: true });
  const drainMs = settings.drain_deadline ?? DEFAULT_DRAIN_DEADLINE_MS;

  const shutdown = new Shutdown(log);
  const dependencies = new Dependencies({ log, registry });
  let check: ReadinessCheck | undefined;
  const admin = createAdminApp({
    registry,
    identity: { service: def.name, version, instance: instanceId },
    readiness: () => check,
    draining: () => shutdown.started,
  });
  // The admin app closes after every step, so /readyz says "draining" throughout.
  const closeAll = async () => {
    await shutdown.run(drainMs);
    await admin.close().catch(() => undefined);
  };

  const exporter = otlpFromEnv(opts.env ?? process.env);
  if (exporter) {
    const release = installTracing({ serviceName: def.name, serviceVersion: version, serviceInstanceId: instanceId, spanProcessors: [exporter] });
    shutdown.add('tracing', () => release());
  }

  const urls: Record<string, string> = {};
  const described: Record<string, unknown> = {};
  const ctx: ServiceContext<z.output<S>> = {
    name: def.name,
    version,
    instanceId,
    config,
    log,
    registry,
    admin,
    requestLog: (f) => requestLogger(log, f),
    readiness: (c) => void (check = c),
    onClose: (step, fn) => shutdown.add(step, fn),
    async listenHttp(name, target, address, o) {
      const l = await listenHttp(target, address, o);
      if ((o?.sockets ?? 1) > (l.sockets ?? 1)) {
        log.warn(
          { listener: name, asked: o?.sockets, bound: l.sockets, node: process.version },
          'this Node cannot share a port (SO_REUSEPORT needs Node >= 22.12): one listening socket',
        );
      }
      register(name, l);
      return l.url;
    },
    async listenGrpc(name, server, address, tls) {
      const l = await listenGrpc(server, address, serverTls(tls));
      register(name, l);
      return `${l.url.slice('http://'.length)}`;
    },
    async grpcServer(name, spec) {
      const tlsKey = spec.tlsKey ?? 'tls';
      const { host } = parseListen(spec.address);
      const where = `${def.name} ${name} listener`;
      if (!isLoopbackHost(host)) {
        const why = !spec.tls
          ? `plaintext gRPC on ${spec.address}: ${tlsKey} is not set`
          : !spec.tls.client_ca
            ? `gRPC on ${spec.address} without client certificates: ${tlsKey}.client_ca is not set, so any client may call`
            : undefined;
        if (why && !spec.insecure)
          throw new ConfigError(where, [
            `refusing ${why}. Configure ${tlsKey} { cert, key, client_ca } (docs/security.md), or set insecure: true to accept it`,
          ]);
        if (why) log.warn({ listener: name, address: spec.address }, `insecure: true — ${why}; anyone who can reach it may call it`);
      }
      const tls = serverTls(spec.tls, tlsKey);
      const refusals = new Map<string, number>();
      // One line per distinct refusal and minute: a misconfigured client retries often.
      const noteRefusal = (key: string, fields: Record<string, unknown>, msg: string) => {
        const now = Date.now();
        if ((refusals.get(key) ?? 0) > now - 60_000) return;
        refusals.set(key, now);
        if (refusals.size > 1000) refusals.clear();
        log.warn({ listener: name, ...fields }, msg);
      };
      const interceptors = tls?.requireClientCert
        ? [
            authorizationInterceptor(spec.authorize, (r) =>
              noteRefusal(`${r.path} ${r.details}`, { method: r.path, peer: r.peer, code: r.code }, `call refused: ${r.details}`),
            ),
          ]
        : [];
      const sizeLimit = spec.maxReceiveMessageBytes !== undefined ? { 'grpc.max_receive_message_length': spec.maxReceiveMessageBytes } : {};
      const server = createServer({ ...spec.options, ...sizeLimit, interceptors });
      const health = new HealthService('SERVING');
      for (const svc of spec.services) {
        server.addService(svc.definition, svc.implementation);
        health.set(serviceNameOf(svc.definition), 'SERVING');
      }
      health.addTo(server);
      const l = await listenGrpc(server, spec.address, tls);
      // Clients without a certificate, or with one from another CA, fail in the
      // handshake (they see UNAVAILABLE): say here why.
      const h2 = (server as unknown as { http2Servers?: Map<unknown, unknown> }).http2Servers;
      if (tls && h2 instanceof Map) {
        for (const srv of h2.keys()) {
          (srv as NodeJS.EventEmitter).on?.('tlsClientError', (err: Error, socket: { remoteAddress?: string }) =>
            noteRefusal(`tls ${socket?.remoteAddress} ${err.message}`, { peer: socket?.remoteAddress }, `TLS handshake refused: ${err.message}`),
          );
        }
      }
      register(name, l);
      ctx.onClose(`${name} health`, () => health.shutdown());
      return { address: l.url.slice('http://'.length), server, health };
    },
    clientTls: (files, what) => clientTls(files, what),
    describe: (fields) => void Object.assign(described, fields),
    async redis(purpose, url, o = {}) {
      if (shutdown.started) throw new Error(`redis ${purpose}: the service is shutting down`);
      const r = await openRedis(purpose, url, o, { log, dependencies });
      if (shutdown.started) {
        await r.close();
        throw new Error(`redis ${purpose}: the service is shutting down`);
      }
      shutdown.add(`redis ${purpose}`, () => r.close());
      return r.client;
    },
    dependency: (name, fields) => dependencies.get(name, fields),
    async leader(name, o) {
      const lock = o.lock ?? (o.redisUrl ? new RedisLeaderLock(await ctx.redis(`leader lock ${name}`, o.redisUrl), o.keyPrefix) : new MemoryLeaderLock());
      const election = new LeaderElection({
        lock,
        name,
        owner: instanceId,
        ttlMs: o.ttlMs,
        intervalMs: o.intervalMs,
        onElected: o.onElected,
        onLost: o.onLost,
        // An unreachable Redis is the redis dependency's line; a failed lock call is detail.
        onError: (e) => log.debug({ lock: name, err: (e as Error).message }, 'leader lock error'),
      });
      shutdown.add(`leader ${name}`, () => election.stop());
      return election;
    },
  };
  function register(name: string, l: Listener): void {
    urls[name] = l.url;
    shutdown.add(`listener ${name}`, (signal) => l.close(signal));
  }

  let service: H;
  let adminUrl: string | undefined;
  let url: string | undefined;
  try {
    service = await def.start(ctx);
    if (settings.admin_listen !== undefined) {
      adminUrl = (await listenHttp(admin, settings.admin_listen)).url;
      urls.admin = adminUrl;
    }
    url = Object.entries(urls).find(([k]) => k !== 'admin')?.[1] ?? adminUrl;
    logListening(log, { url, urls: { ...urls }, ...described });
  } catch (e) {
    await closeAll();
    throw e;
  }

  let closing: Promise<void> | undefined;
  return {
    name: def.name,
    instanceId,
    log,
    registry,
    config,
    service,
    url,
    urls: Object.freeze({ ...urls }),
    adminUrl,
    admin,
    async ready() {
      if (shutdown.started) return { ready: false, status: 'draining' };
      return check ? check() : { ready: false, status: 'starting' };
    },
    close: () => (closing ??= closeAll()),
  };
}

/**
 * `llmgw <role>`: starts the service, waits for SIGTERM or SIGINT, shuts down
 * in order, and returns the exit status: 0 after a clean stop, 2 when the
 * config is invalid (the message on stderr). A second signal during the drain
 * ends the process at once (Node's default once our handler is gone).
 */
export async function runService<S extends z.ZodType, H>(
  def: ServiceDefinition<S, H>,
  opts: StartServiceOptions & { configErrors?: Array<new (...a: any[]) => Error> },
): Promise<number> {
  let running: RunningService<H, z.output<S>>;
  try {
    running = await startService(def, opts);
  } catch (e) {
    if (e instanceof ConfigError || opts.configErrors?.some((k) => e instanceof k)) {
      process.stderr.write(`llmgw ${def.name}: ${(e as Error).message}\n`);
      return 2;
    }
    // A dependency that cannot be reached at start (the database): what and why on one line, no stack.
    if (isLlmgwError(e) && e.code === 'LLMGW_ERR_UNAVAILABLE') {
      process.stderr.write(`llmgw ${def.name}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  await untilSignal(() => running.close());
  return 0;
}
