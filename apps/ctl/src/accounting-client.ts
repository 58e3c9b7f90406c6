import { AccountingClient } from '@llmgw/accounting-rpc';
import type { ClientTlsOptions } from '@llmgw/grpc';

export { normaliseAddress } from '@llmgw/accounting-rpc';

/** ctl's accounting client: TenancyAdmin as promises, every call carrying the actor (libs/accounting-rpc). */
/** TLS as the host read it (ctl's context); cert+key = mTLS (the audit log then records the certificate's CN). */
export function accountingAdmin(
  address: string,
  opts: { actor: string; timeoutMs: number; tls?: ClientTlsOptions; idempotencyKey?: string },
): AccountingClient {
  return new AccountingClient({ address, tls: opts.tls, actor: opts.actor, callTimeoutMs: opts.timeoutMs, idempotencyKeyBase: opts.idempotencyKey });
}
