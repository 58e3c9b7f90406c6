import * as grpc from '@grpc/grpc-js';

/**
 * Metadata naming the operator behind an admin call: set by `llmgw ctl`
 * (`--actor`) and by every relay that forwards an operator's call (the
 * placement-scheduler's ControlService towards inventory and the audit log),
 * so the identity survives each hop and lands in the audit log.
 */
export const ACTOR_METADATA_KEY = 'x-llmgw-actor';

/**
 * Certificate roles (subject OU) that call on behalf of someone else: their
 * `x-llmgw-actor` is the identity they resolved for the original caller and
 * is taken as it is, not combined with the relay's own CN.
 */
export const RELAY_ROLES: ReadonlySet<string> = new Set(['placement-scheduler', 'portal']);

type AuthCall = { getAuthContext(): { sslPeerCertificate?: { subject?: { CN?: string | string[]; OU?: string | string[] } } } | null; metadata: grpc.Metadata };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

/**
 * Who is behind a call, for logs, intent records and the audit log:
 * - a relay's certificate (OU in RELAY_ROLES) with `x-llmgw-actor`: that actor, as the relay resolved it;
 * - any other client certificate: its CN, with the claimed actor in front when one is sent ("alice (cn=ops-1)");
 * - no certificate (plaintext, loopback or `insecure`): the claimed actor, else "anonymous".
 */
export function callerActor(call: AuthCall): string {
  const cert = call.getAuthContext()?.sslPeerCertificate;
  const cn = first(cert?.subject?.CN);
  const ou = first(cert?.subject?.OU);
  const raw = call.metadata.get(ACTOR_METADATA_KEY)[0];
  const claimed = typeof raw === 'string' && raw.trim() ? raw.trim().slice(0, 200) : undefined;
  if (cn && ou && RELAY_ROLES.has(ou) && claimed) return claimed;
  if (cn) return claimed ? `${claimed} (cn=${cn})` : `cn=${cn}`;
  return claimed ?? 'anonymous';
}

/** `md` (or new metadata) carrying `actor` for the next hop. */
export function withActor(actor: string | undefined, md: grpc.Metadata = new grpc.Metadata()): grpc.Metadata {
  if (actor) md.set(ACTOR_METADATA_KEY, actor);
  return md;
}
