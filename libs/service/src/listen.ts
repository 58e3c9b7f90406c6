import { readFileSync } from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  /** Stops accepting, lets running work finish until `signal` aborts, then cuts what is left. */
  close(signal: AbortSignal): Promise<void>;
}

/** Listens an HTTP server or a fastify app on "host:port" (port 0 = any free one). */
export async function listenHttp(target: HttpServer | FastifyInstance, address: string, opts: { backlog?: number } = {}): Promise<Listener> {
  const { host, port } = parseListen(address);
  let server: HttpServer;
  if (isFastify(target)) {
    await target.listen({ host, port, backlog: opts.backlog });
    server = target.server;
  } else {
    server = target;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port, backlog: opts.backlog }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  }
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${reachableHost(host)}:${bound}`,
    host,
    port: bound,
    close: (signal) => {
      const cut = () => server.closeAllConnections();
      if (signal.aborted) cut();
      else signal.addEventListener('abort', cut, { once: true });
      const closed = isFastify(target) ? target.close() : new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      return closed.finally(() => signal.removeEventListener('abort', cut));
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
