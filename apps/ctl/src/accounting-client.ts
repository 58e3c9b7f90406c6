import { AccountingClient } from '@llmgw/accounting-rpc';
import { readFileSync } from 'node:fs';

export { normaliseAddress } from '@llmgw/accounting-rpc';

/** PEM files for TLS to the admin APIs; cert+key = mTLS (the audit log then records the certificate's CN). */
export interface CtlTls {
  ca?: string;
  cert?: string;
  key?: string;
}

/** ctl's accounting client: TenancyAdmin as promises, every call carrying the actor (libs/accounting-rpc). */
export function accountingAdmin(address: string, opts: { actor: string; timeoutMs: number; tls?: CtlTls }): AccountingClient {
  const t = opts.tls;
  const read = (f?: string) => (f ? readFileSync(f) : undefined);
  const tls = t && (t.ca || t.cert || t.key) ? { ca: read(t.ca), cert: read(t.cert), key: read(t.key) } : undefined;
  return new AccountingClient({ address, tls, actor: opts.actor, callTimeoutMs: opts.timeoutMs });
}
