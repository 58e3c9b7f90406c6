import * as grpc from '@grpc/grpc-js';
import { serverCredentials, type ServerTlsOptions } from './credentials';

/** Keepalive and size limits shared by every llmgw server. */
export const DEFAULT_SERVER_OPTIONS: grpc.ServerOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.http2.min_ping_interval_without_data_ms': 5_000,
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
};

export function createServer(options: grpc.ServerOptions = {}): grpc.Server {
  return new grpc.Server({ ...DEFAULT_SERVER_OPTIONS, ...options });
}

/**
 * Binds and starts listening; resolves with the bound port (pass 0 for an
 * ephemeral one). Plaintext without `tls`.
 */
export function listen(
  server: grpc.Server,
  host: string,
  port: number,
  opts: { tls?: ServerTlsOptions; credentials?: grpc.ServerCredentials } = {},
): Promise<number> {
  const creds = opts.credentials ?? serverCredentials({ tls: opts.tls });
  const addr = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve, reject) => {
    server.bindAsync(addr, creds, (err, bound) => (err ? reject(err) : resolve(bound)));
  });
}

/**
 * Graceful stop: refuse new calls, let running ones finish for up to
 * `timeoutMs`, then cancel whatever is left (long-lived streams would
 * otherwise hold shutdown forever).
 */
export function shutdown(server: grpc.Server, timeoutMs = 5_000): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      server.forceShutdown();
      resolve();
    }, timeoutMs);
    timer.unref();
    server.tryShutdown(() => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve();
    });
  });
}
