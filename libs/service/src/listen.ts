import { readFileSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Server as GrpcServer } from '@grpc/grpc-js';
import { parseListen, reachableHost } from '@llmgw/cli';
import { ConfigError } from '@llmgw/config';
import { listen as grpcListen, type ClientTlsOptions, type ServerTlsOptions } from '@llmgw/grpc';

/** A config's server `tls` block (file paths), as every gRPC service's schema spells it. */
export interface TlsFiles {
  cert: string;
  key: string;
  /** mTLS: the CA client certificates must chain to; clients without one are refused. */
  client_ca?: string;
}

/** A config's client `tls` block (file paths): the server's CA, this side's certificate and key. */
export interface ClientTlsFiles {
  ca: string;
  cert?: string;
  key?: string;
  server_name?: string;
}

/** One PEM file, or a ConfigError naming the config key and the path. */
function readPem(what: string, path: string): Buffer {
  let pem: Buffer;
  try {
    pem = readFileSync(path);
  } catch (e) {
    throw new ConfigError(what, [`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`]);
  }
  if (!pem.includes('-----BEGIN ')) throw new ConfigError(what, [`${path} is not a PEM file (no "-----BEGIN" line)`]);
  return pem;
}

/** Reads a server `tls` block's files once, at start (`what` names the block in errors, e.g. "tls"). */
export function serverTls(files: TlsFiles | undefined, what = 'tls'): ServerTlsOptions | undefined {
  if (!files) return undefined;
  return {
    cert: readPem(`${what}.cert`, files.cert),
    key: readPem(`${what}.key`, files.key),
    ...(files.client_ca ? { ca: readPem(`${what}.client_ca`, files.client_ca), requireClientCert: true } : {}),
  };
}

/**
 * Reads a client `tls` block's files once, at start, into what the gRPC
 * clients take (`what` names the block in errors, e.g. "inventory.tls").
 * Apps never read TLS files themselves: they pass their block here.
 */
export function clientTls(files: ClientTlsFiles | undefined, what = 'tls'): ClientTlsOptions | undefined {
  if (!files) return undefined;
  if ((files.cert === undefined) !== (files.key === undefined)) throw new ConfigError(what, ['cert and key go together']);
  return {
    ca: readPem(`${what}.ca`, files.ca),
    ...(files.cert ? { cert: readPem(`${what}.cert`, files.cert), key: readPem(`${what}.key`, files.key!) } : {}),
    ...(files.server_name ? { serverName: files.server_name } : {}),
  };
}

/** True for 127.0.0.0/8, ::1 and localhost: the addresses plaintext stays allowed on. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\./.test(h);
}

export interface Listener {
  /** How a client on this machine reaches it: http://host:port for both HTTP and gRPC. */
  url: string;
  host: string;
  port: number;
  /** Listening sockets bound on the port (ListenHttpOptions.sockets; 1 for gRPC). */
  sockets?: number;
  /** Stops accepting, lets running work finish until `signal` aborts, then cuts what is left. */
  close(signal: AbortSignal): Promise<void>;
}

export interface ListenHttpOptions {
  /** The accept queue's depth (the kernel caps it at net.core.somaxconn). */
  backlog?: number;
  /**
   * Sockets bound on the port (SO_REUSEPORT, all in this process; default 1). Node accepts one
   * connection per listening socket per event-loop turn, so a busy process with one socket takes
   * new connections slowly while they queue in the kernel; N sockets take up to N per turn
   * (docs/performance.md, "One connection per event-loop turn"). Where Node cannot share a port
   * (before 22.12) the listener keeps one socket.
   */
  sockets?: number;
}

/** Listens `server` on host:port with the given options; rejects with the listen error. */
function listenOn(server: NetServer, o: { host: string; port: number; backlog?: number; reusePort?: boolean }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

const closeNet = (s: NetServer) => new Promise<void>((r) => s.close(() => r()));

/**
 * A free port on `host` (the one asked for, or any when 0), checked by binding it without
 * SO_REUSEPORT: a port held by anything else, a process sharing it by SO_REUSEPORT included,
 * fails here with EADDRINUSE, so a second router on the same port never quietly splits its
 * connections with the first.
 */
async function claimPort(host: string, port: number): Promise<number> {
  const probe = createNetServer();
  await listenOn(probe, { host, port });
  const bound = (probe.address() as AddressInfo).port;
  await closeNet(probe);
  return bound;
}

/**
 * More sockets on `server`'s port, each handing what it accepts to `server` as its own
 * connection; [] where this Node cannot share a port (the main socket then serves alone).
 */
async function extraSockets(server: HttpServer, host: string, port: number, n: number, backlog: number | undefined): Promise<NetServer[]> {
  const extra: NetServer[] = [];
  for (let i = 1; i < n; i++) {
    const s = createNetServer((socket) => server.emit('connection', socket));
    try {
      await listenOn(s, { host, port, backlog, reusePort: true });
    } catch {
      await Promise.all(extra.map(closeNet));
      return [];
    }
    extra.push(s);
  }
  return extra;
}

/** Listens an HTTP server or a fastify app on "host:port" (port 0 = any free one). */
export async function listenHttp(target: HttpServer | FastifyInstance, address: string, opts: ListenHttpOptions = {}): Promise<Listener> {
  const { host, port: asked } = parseListen(address);
  const shared = (opts.sockets ?? 1) > 1;
  let server: HttpServer;
  for (let tries = 1; ; tries++) {
    // With several sockets the port is claimed first (see claimPort), then bound shared.
    const port = shared ? await claimPort(host, asked) : asked;
    const how = { host, port, backlog: opts.backlog, ...(shared ? { reusePort: true } : {}) };
    try {
      if (isFastify(target)) {
        await target.listen(how);
        server = target.server;
      } else {
        server = target;
        await listenOn(server, how);
      }
      break;
    } catch (e) {
      // Another process took the free port between the claim and the bind: claim another.
      if (!(shared && asked === 0 && (e as NodeJS.ErrnoException).code === 'EADDRINUSE' && tries < 5)) throw e;
    }
  }
  const bound = (server.address() as AddressInfo).port;
  const extra = shared ? await extraSockets(server, host, bound, opts.sockets!, opts.backlog) : [];
  return {
    url: `http://${reachableHost(host)}:${bound}`,
    host,
    port: bound,
    sockets: 1 + extra.length,
    close: (signal) => {
      const cut = () => server.closeAllConnections();
      if (signal.aborted) cut();
      else signal.addEventListener('abort', cut, { once: true });
      const closed = Promise.all([isFastify(target) ? target.close() : new Promise<void>((r) => server.close(() => r())), ...extra.map(closeNet)]);
      server.closeIdleConnections();
      return closed.then(() => undefined).finally(() => signal.removeEventListener('abort', cut));
    },
  };
}

/** Binds a gRPC server on "host:port", TLS or mTLS when `tls` is given. */
export async function listenGrpc(server: GrpcServer, address: string, tls?: ServerTlsOptions): Promise<Listener> {
  const { host, port } = parseListen(address);
  const bound = await grpcListen(server, host, port, { tls });
  return {
    url: `http://${reachableHost(host)}:${bound}`,
    host,
    port: bound,
    close: async (signal) => {
      if (signal.aborted) return void server.forceShutdown();
      await new Promise<void>((resolve) => {
        const cut = () => {
          server.forceShutdown();
          resolve();
        };
        signal.addEventListener('abort', cut, { once: true });
        // tryShutdown alone waits for long streams forever; the drain deadline bounds it.
        server.tryShutdown(() => {
          signal.removeEventListener('abort', cut);
          resolve();
        });
      });
    },
  };
}

function isFastify(x: HttpServer | FastifyInstance): x is FastifyInstance {
  return typeof (x as FastifyInstance).inject === 'function';
}
