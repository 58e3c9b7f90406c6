import * as grpc from '@grpc/grpc-js';

/**
 * The roles a certificate can carry in its subject OU (docs/security.md).
 * A server authorizes each call by the role of the caller's certificate.
 */
export const ROLES = ['router', 'operator', 'node', 'admission', 'accounting', 'inventory', 'placement-scheduler', 'portal'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(v: string): v is Role {
  return (ROLES as readonly string[]).includes(v);
}

/**
 * Who may call what on one gRPC server: keys are a service ("pkg.Service")
 * or one method ("pkg.Service/Method", which wins over its service); values
 * the roles allowed, or 'any' (any certificate the server's CA signed).
 * Services not named are refused to everyone (fail closed). grpc.health.v1
 * is open to any valid certificate unless named.
 */
export type AuthorizationTable = Readonly<Record<string, readonly Role[] | 'any'>>;

export const HEALTH_SERVICE_NAME = 'grpc.health.v1.Health';

type PeerCert = { subject?: Record<string, string | string[] | undefined> };
type HasAuth = { getAuthContext(): { sslPeerCertificate?: PeerCert } | null | undefined };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

/** The client certificate's subject (CN, OU) on an mTLS call; undefined without one. */
export function peerSubject(call: HasAuth): { cn?: string; ou?: string } | undefined {
  const cert = call.getAuthContext()?.sslPeerCertificate;
  if (!cert?.subject) return undefined;
  return { cn: first(cert.subject.CN), ou: first(cert.subject.OU) };
}

/** The role (subject OU) of the caller's certificate; undefined without a certificate or an OU. */
export function peerRole(call: HasAuth): string | undefined {
  return peerSubject(call)?.ou;
}

/** "/pkg.Service/Method" → ["pkg.Service", "Method"]. */
function splitPath(path: string): [string, string] {
  const m = /^\/([^/]+)\/([^/]+)$/.exec(path);
  return m ? [m[1], m[2]] : [path, ''];
}

/**
 * The decision for one call: undefined to let it through, else the status
 * and message to refuse it with. `certificate` undefined means the call came
 * without a client certificate (a server without client_ca, or plaintext).
 */
export function authorizeCall(
  table: AuthorizationTable,
  path: string,
  certificate: { cn?: string; ou?: string } | undefined,
): { code: grpc.status; details: string } | undefined {
  const [service, method] = splitPath(path);
  const rule = table[`${service}/${method}`] ?? table[service] ?? (service === HEALTH_SERVICE_NAME ? 'any' : undefined);
  const what = `${service}/${method}`;
  if (!certificate) return { code: grpc.status.UNAUTHENTICATED, details: `${what} needs a client certificate (mTLS) carrying a role` };
  if (rule === undefined) return { code: grpc.status.PERMISSION_DENIED, details: `${what} is not open to any role on this server` };
  if (rule === 'any') return undefined;
  const who = certificate.cn ? ` (CN=${certificate.cn})` : '';
  if (!certificate.ou)
    return {
      code: grpc.status.PERMISSION_DENIED,
      details: `the client certificate${who} carries no role (subject OU); ${what} needs role ${rule.join(' or ')}`,
    };
  if (!(rule as readonly string[]).includes(certificate.ou))
    return {
      code: grpc.status.PERMISSION_DENIED,
      details: `wrong role ${JSON.stringify(certificate.ou)}${who} for ${what}; it needs role ${rule.join(' or ')}`,
    };
  return undefined;
}

/**
 * A server interceptor enforcing `table` on every call, before the handler
 * runs. `onRefused` hears each refusal (the host logs it).
 */
export function authorizationInterceptor(
  table: AuthorizationTable,
  onRefused?: (r: { path: string; code: grpc.status; details: string; peer: string }) => void,
): grpc.ServerInterceptor {
  return (method, call) => {
    const refusal = authorizeCall(table, method.path, peerSubject(call as unknown as HasAuth));
    if (!refusal) return new grpc.ServerInterceptingCall(call);
    let refused = false;
    const refuse = () => {
      if (refused) return;
      refused = true;
      onRefused?.({ path: method.path, ...refusal, peer: call.getPeer() });
      call.sendStatus({ ...refusal, metadata: new grpc.Metadata() });
    };
    return new grpc.ServerInterceptingCall(call, {
      start: (next) => {
        next({
          // Refuse as soon as the call's headers arrive; the handler never sees it.
          onReceiveMetadata: () => refuse(),
          onReceiveMessage: () => undefined,
          onReceiveHalfClose: () => undefined,
          onCancel: () => undefined,
        });
      },
    });
  };
}
