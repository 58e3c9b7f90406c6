import * as grpc from '@grpc/grpc-js';
import type { CreditLimit, CreditUse } from './credits';
import { admissionClientConstructor } from './proto';
import type {
  AcquireRequestWire,
  AcquireResponseWire,
  HeldLeaseWire,
  KeepAliveResponseWire,
  ReleaseRequestWire,
  StatusResponseWire,
} from './wire';

export interface AdmissionRpcClientOptions {
  /** "host:port" of the leader and its standbys, in the order to try. */
  addresses: string[];
  credentials?: grpc.ChannelCredentials;
  channelOptions?: grpc.ChannelOptions;
  /** Deadline of Release/KeepAlive/Status calls, ms. */
  callTimeoutMs?: number;
}

/** Whether a failed call means "the service is not there" (fall back), not "the request is bad". */
export function isUnreachable(e: unknown): boolean {
  const code = (e as { code?: number })?.code;
  return code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED || code === grpc.status.UNKNOWN || code === grpc.status.INTERNAL || code === undefined;
}

/**
 * A promisified llmgw.admission.v1 client over one or more addresses. Calls go
 * to the current address; `Acquire` moves on to the next address when one
 * answers UNAVAILABLE (a standby, or a dead leader), and `findServing` picks
 * the address whose Status says it leads.
 */
export class AdmissionRpcClient {
  private readonly clients: grpc.Client[];
  private current = 0;
  private readonly timeout: number;

  constructor(readonly o: AdmissionRpcClientOptions) {
    if (o.addresses.length === 0) throw new Error('admission client: no address');
    const Ctor = admissionClientConstructor();
    const creds = o.credentials ?? grpc.credentials.createInsecure();
    this.clients = o.addresses.map((a) => new Ctor(a, creds, { 'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 1000, ...o.channelOptions }));
    this.timeout = o.callTimeoutMs ?? 2000;
  }

  get address(): string {
    return this.o.addresses[this.current];
  }

  private unaryOn<T>(i: number, method: string, req: unknown, deadlineMs: number, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const call = (this.clients[i] as any)[method](req, { deadline: new Date(Date.now() + deadlineMs) }, (err: grpc.ServiceError | null, res: T) => {
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(res);
      }) as grpc.ClientUnaryCall;
      const onAbort = () => call.cancel();
      if (signal) {
        if (signal.aborted) call.cancel();
        else signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  /** Waits for admission; cancelling `signal` cancels the call (and so dequeues the request). */
  async acquire(req: AcquireRequestWire, waitMs: number, signal?: AbortSignal): Promise<AcquireResponseWire> {
    let lastErr: unknown;
    for (let k = 0; k < this.clients.length; k++) {
      const i = (this.current + k) % this.clients.length;
      try {
        const res = await this.unaryOn<AcquireResponseWire>(i, 'acquire', req, waitMs, signal);
        this.current = i;
        return res;
      } catch (e) {
        lastErr = e;
        if ((e as { code?: number }).code !== grpc.status.UNAVAILABLE) throw e;
      }
    }
    throw lastErr;
  }

  release(r: ReleaseRequestWire): Promise<{ released: boolean }> {
    return this.unaryOn(this.current, 'release', r, this.timeout);
  }

  keepAlive(routerId: string, leases: HeldLeaseWire[]): Promise<KeepAliveResponseWire> {
    return this.unaryOn(this.current, 'keepAlive', { routerId, leases }, this.timeout);
  }

  /** Renews this router's credits (the `Credit` RPC) at the current address. */
  credit(routerId: string, uses: CreditUse[]): Promise<{ grants: CreditLimit[]; ttlMs: number; fencingToken: number }> {
    return this.unaryOn(this.current, 'credit', { routerId, uses }, this.timeout);
  }

  status(i = this.current): Promise<StatusResponseWire> {
    return this.unaryOn(i, 'status', {}, this.timeout);
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
