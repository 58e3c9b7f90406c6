import * as grpc from '@grpc/grpc-js';
import type { admissionV1 } from '@llmgw/contracts';
import { callUnary, clientChannelOptions, clientCredentials, type CallOptions, type ClientTlsOptions } from '@llmgw/grpc';
import { admissionClientConstructor } from './proto';

export interface AdmissionRpcClientOptions {
  /** "host:port" of the leader and its standbys, in the order to try. */
  addresses: string[];
  credentials?: grpc.ChannelCredentials;
  /** TLS (mTLS with cert + key) to every address; used when `credentials` is absent. */
  tls?: ClientTlsOptions;
  channelOptions?: grpc.ChannelOptions;
  /** Deadline of Release/KeepAlive/Credit/Status calls, ms. */
  callTimeoutMs?: number;
}

/** The gRPC status a failed call ended with (`grpcCode` of the LlmgwError callUnary rejects with). */
function statusOf(e: unknown): number | undefined {
  const x = e as { grpcCode?: number; code?: unknown } | undefined;
  if (typeof x?.grpcCode === 'number') return x.grpcCode;
  return typeof x?.code === 'number' ? x.code : undefined;
}

/** Whether a failed call means "the service is not there" (fall back), not "the request is bad". */
export function isUnreachable(e: unknown): boolean {
  const code = statusOf(e);
  return (
    code === grpc.status.UNAVAILABLE ||
    code === grpc.status.DEADLINE_EXCEEDED ||
    code === grpc.status.UNKNOWN ||
    code === grpc.status.INTERNAL ||
    code === undefined
  );
}

/**
 * The typed llmgw.admission.v1 client over one or more addresses, on
 * libs/grpc `callUnary` (deadline, x-request-id + traceparent metadata, a
 * client span; retries only for the idempotent KeepAlive, Credit and
 * Status). Calls go to the current address; `Acquire` moves on to the next
 * address when one answers UNAVAILABLE (a standby, or a dead leader), and
 * `findServing` picks the address whose Status says it leads. Failures reject
 * with the LlmgwError `fromGrpcError` rebuilds.
 */
export class AdmissionRpcClient {
  private readonly clients: admissionV1.AdmissionClient[];
  private current = 0;
  private readonly timeout: number;

  constructor(readonly o: AdmissionRpcClientOptions) {
    if (o.addresses.length === 0) throw new Error('admission client: no address');
    const Ctor = admissionClientConstructor();
    const creds = o.credentials ?? clientCredentials({ tls: o.tls });
    const tlsOptions = (a: string) => (o.credentials ? {} : clientChannelOptions({ tls: o.tls, address: a }));
    this.clients = o.addresses.map(
      (a) => new Ctor(a, creds, { 'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 1000, ...tlsOptions(a), ...o.channelOptions }),
    );
    this.timeout = o.callTimeoutMs ?? 2000;
  }

  get address(): string {
    return this.o.addresses[this.current];
  }

  private call<Res>(i: number, method: keyof admissionV1.AdmissionClient & string, req: unknown, opts: CallOptions): Promise<Res> {
    return callUnary<Res>(this.clients[i] as unknown as grpc.Client, method, req, { deadlineMs: this.timeout, ...opts });
  }

  /** Waits for admission; cancelling `signal` cancels the call (and so dequeues the request). Not retried: it queues. */
  async acquire(req: admissionV1.AcquireRequest, waitMs: number, signal?: AbortSignal): Promise<admissionV1.AcquireResponse__Output> {
    let lastErr: unknown;
    for (let k = 0; k < this.clients.length; k++) {
      const i = (this.current + k) % this.clients.length;
      try {
        const res = await this.call<admissionV1.AcquireResponse__Output>(i, 'Acquire', req, {
          deadlineMs: waitMs,
          signal,
          requestId: req.requestId || undefined,
        });
        this.current = i;
        return res;
      } catch (e) {
        lastErr = e;
        if (statusOf(e) !== grpc.status.UNAVAILABLE) throw e;
      }
    }
    throw lastErr;
  }

  /** Not retried: a Release that may have arrived is not sent twice (a lost one expires with KeepAlive). */
  release(r: admissionV1.ReleaseRequest): Promise<admissionV1.ReleaseResponse__Output> {
    return this.call(this.current, 'Release', r, {});
  }

  keepAlive(routerId: string, leases: admissionV1.HeldLease[]): Promise<admissionV1.KeepAliveResponse__Output> {
    return this.call(this.current, 'KeepAlive', { routerId, leases }, { idempotent: true });
  }

  /** Renews this router's credits (the `Credit` RPC) at the current address. */
  credit(routerId: string, uses: admissionV1.CreditUse[]): Promise<admissionV1.CreditResponse__Output> {
    return this.call(this.current, 'Credit', { routerId, uses }, { idempotent: true });
  }

  /** One address's Status; not retried (findServing asks them all and a probe repeats). */
  status(i = this.current): Promise<admissionV1.StatusResponse__Output> {
    return this.call(i, 'Status', {}, {});
  }

  /** Asks every address for Status; makes the first serving one current. */
  async findServing(): Promise<string | undefined> {
    const answers = await Promise.all(this.clients.map((_c, i) => this.status(i).catch(() => undefined)));
    const i = answers.findIndex((a) => a?.serving);
    if (i < 0) return undefined;
    this.current = i;
    return this.o.addresses[i];
  }

  close(): void {
    for (const c of this.clients) c.close();
  }
}
