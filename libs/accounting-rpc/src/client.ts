import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import type { accountingV1 } from '@llmgw/contracts';
import { callUnary, makeClient, type CallOptions, type ClientTlsOptions } from '@llmgw/grpc';
import { accountingProto } from './proto';

/** Metadata key naming who makes an admin call (recorded in the audit log). */
export const ACTOR_KEY = 'x-llmgw-actor';

export interface AccountingClientOptions {
  /** "host:port"; a leading grpc:// or http(s):// (what the service logs) is accepted. */
  address: string;
  /** TLS / mTLS material; plaintext when absent (ignored when `credentials` is given). */
  tls?: ClientTlsOptions;
  credentials?: grpc.ChannelCredentials;
  /** Deadline of calls without their own, ms (default 10000). */
  callTimeoutMs?: number;
  /** Default `x-llmgw-actor` of admin calls. */
  actor?: string;
  /** Told of every call's outcome: accounting lost / back (the service host's `ctx.dependency`). */
  dependency?: CallOptions['dependency'];
  /**
   * Idempotency keys of admin writes are `<base>:<n>` for the n-th write made
   * through this client (ctl: one base per invocation, so repeating a command
   * with the same base repeats the same keys); absent = a fresh key per write.
   */
  idempotencyKeyBase?: string;
}

export type AccountingMethod = (keyof accountingV1.TenancyAdminClient & string) | 'ResolveKey';

/** Admin methods that only read: retried when the service is briefly unavailable. */
const READS = /^(Get|List|Explain|Query)/;

/**
 * Reconnect promptly after accounting restarts (docs/accounting.md): grpc-js
 * waits 1 s after a failed connect and doubles up to 120 s, so a router that
 * saw accounting down for a while took seconds to notice it back. Capped at
 * 500 ms here: one connect attempt per half second to a peer that is down is
 * cheap, and a key is resolved (or its record read) meanwhile.
 */
export const RECONNECT: grpc.ChannelOptions = { 'grpc.initial_reconnect_backoff_ms': 100, 'grpc.max_reconnect_backoff_ms': 500 };

/**
 * Metadata key of an admin write's idempotency key: accounting records the
 * first result under it and answers a repeat with that result instead of
 * writing again (docs/accounting.md, "Retries and request ids").
 */
export const IDEMPOTENCY_KEY = 'llmgw-idempotency-key';

/** Strips an optional grpc:// or http(s):// and trailing slashes. */
export function normaliseAddress(addr: string): string {
  return addr.replace(/^(grpc|http|https):\/\//, '').replace(/\/+$/, '');
}

/**
 * The typed client of accounting's KeyResolver and TenancyAdmin (one channel),
 * on libs/grpc `callUnary`: a deadline on every call, `x-request-id` and
 * `traceparent` in metadata, retries only for ResolveKey and the admin reads.
 * Failures reject with the LlmgwError `fromGrpcError` rebuilds (catalogue code
 * kept).
 */
export class AccountingClient {
  readonly resolver: accountingV1.KeyResolverClient;
  readonly tenancyAdmin: accountingV1.TenancyAdminClient;
  readonly auditLog: accountingV1.AuditLogClient;
  readonly accounts: accountingV1.AccountsClient;
  readonly capacityAdmin: accountingV1.CapacityAdminClient;
  private readonly timeout: number;
  /** Admin writes sent through this client so far. */
  writes = 0;

  constructor(readonly o: AccountingClientOptions) {
    const pkg = accountingProto();
    const address = normaliseAddress(o.address);
    this.tenancyAdmin = o.credentials
      ? new pkg.TenancyAdmin(address, o.credentials, RECONNECT)
      : makeClient(pkg.TenancyAdmin, address, { tls: o.tls, channelOptions: RECONNECT });
    const channel = (this.tenancyAdmin as grpc.Client).getChannel() as grpc.Channel;
    this.resolver = new pkg.KeyResolver(address, o.credentials ?? grpc.credentials.createInsecure(), { channelOverride: channel });
    this.auditLog = new pkg.AuditLog(address, o.credentials ?? grpc.credentials.createInsecure(), { channelOverride: channel });
    this.accounts = new pkg.Accounts(address, o.credentials ?? grpc.credentials.createInsecure(), { channelOverride: channel });
    this.capacityAdmin = new pkg.CapacityAdmin(address, o.credentials ?? grpc.credentials.createInsecure(), { channelOverride: channel });
    this.timeout = o.callTimeoutMs ?? 10_000;
  }

  /** ResolveKey: the key's principal on the wire (NOT_FOUND for a refused key, UNAVAILABLE when down). */
  resolveKey(keyHash: string, opts: CallOptions = {}): Promise<accountingV1.ResolvedKey__Output> {
    return callUnary(this.resolver, 'ResolveKey', { keyHash }, { deadlineMs: this.timeout, idempotent: true, dependency: this.o.dependency, ...opts });
  }

  /**
   * Any method of either service by name; admin calls carry `actor` (or the
   * client's default). Every admin write carries an idempotency key
   * (`idempotencyKey`, else a fresh one per call), so it is retried with that
   * key when accounting or its database is briefly unavailable: a write that
   * completed is returned, not repeated.
   */
  call<Res>(method: AccountingMethod, req: object, opts: CallOptions & { actor?: string; idempotencyKey?: string } = {}): Promise<Res> {
    if (method === 'ResolveKey')
      return callUnary<Res>(this.resolver, method, req, { deadlineMs: this.timeout, idempotent: true, dependency: this.o.dependency, ...opts });
    const { actor = this.o.actor, idempotencyKey, ...rest } = opts;
    const md = rest.metadata?.clone() ?? new grpc.Metadata();
    if (actor) md.set(ACTOR_KEY, actor);
    const read = READS.test(method);
    if (!read) {
      this.writes++;
      const base = this.o.idempotencyKeyBase;
      if (!md.get(IDEMPOTENCY_KEY).length) md.set(IDEMPOTENCY_KEY, idempotencyKey ?? (base ? `${base}:${this.writes}` : randomUUID()));
    }
    return callUnary<Res>(this.tenancyAdmin, method, req, {
      deadlineMs: this.timeout,
      idempotent: true,
      retryDelayMs: read ? 50 : 200,
      dependency: this.o.dependency,
      ...rest,
      metadata: md,
    });
  }

  /**
   * AuditLog.AppendAudit: one operator action done elsewhere (the
   * placement-scheduler's ControlService), `actor` as that relay resolved it.
   * Not retried here (an append is not idempotent); callers queue and retry.
   */
  appendAudit(req: accountingV1.AppendAuditRequest, actor: string, opts: CallOptions = {}): Promise<accountingV1.AuditEvent__Output> {
    const md = opts.metadata?.clone() ?? new grpc.Metadata();
    md.set(ACTOR_KEY, actor);
    return callUnary(this.auditLog, 'AppendAudit', req, { deadlineMs: this.timeout, ...opts, metadata: md });
  }

  /**
   * Any Accounts method (docs/portal.md), carrying `actor`. Reads are retried
   * when accounting is briefly unavailable; writes are not (sign-in and
   * claims must not happen twice).
   */
  account<Res>(method: keyof accountingV1.AccountsClient & string, req: object, opts: CallOptions & { actor?: string } = {}): Promise<Res> {
    const { actor = this.o.actor, ...rest } = opts;
    const md = rest.metadata?.clone() ?? new grpc.Metadata();
    if (actor) md.set(ACTOR_KEY, actor);
    const read = /^(Get|List)/.test(method);
    return callUnary<Res>(this.accounts, method, req, {
      deadlineMs: this.timeout,
      idempotent: read,
      retryDelayMs: 50,
      dependency: this.o.dependency,
      ...rest,
      metadata: md,
    });
  }

  /** CapacityAdmin (docs/capacity.md): reads retried, writes once, every call carrying the actor. */
  capacity<Res>(method: keyof accountingV1.CapacityAdminClient & string, req: object, opts: CallOptions & { actor?: string } = {}): Promise<Res> {
    const { actor = this.o.actor, ...rest } = opts;
    const md = rest.metadata?.clone() ?? new grpc.Metadata();
    if (actor) md.set(ACTOR_KEY, actor);
    const read = /^(Get|List)/.test(method);
    if (!read) this.writes++;
    return callUnary<Res>(this.capacityAdmin, method, req, {
      deadlineMs: this.timeout,
      idempotent: read,
      dependency: this.o.dependency,
      ...rest,
      metadata: md,
    });
  }

  close(): void {
    (this.tenancyAdmin as grpc.Client).close();
  }
}
