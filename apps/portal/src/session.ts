import type { AccountingClient } from '@llmgw/accounting-rpc';
import type { accountingV1 } from '@llmgw/contracts';
import { isLlmgwError } from '@llmgw/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type Person = accountingV1.Account__Output;

/** Staff roles, weakest first; each reads what the ones before it read (docs/portal.md, "People and roles"). */
export const STAFF = ['viewer', 'operator', 'billing', 'admin'] as const;
export type StaffRole = (typeof STAFF)[number];

/** Whether `p` may do what `need` allows: admin may do everything; operator and billing each their own. */
export function allowed(p: Person | undefined, need: StaffRole): boolean {
  if (!p) return false;
  if (p.role === 'admin') return true;
  if (need === 'viewer') return (STAFF as readonly string[]).includes(p.role);
  return p.role === need;
}

export interface SessionCookie {
  name: string;
  secure: boolean;
}

/** The session cookie's name: `__Host-` prefixed when served over TLS (host-only, Secure, path /). */
export function sessionCookie(secure: boolean): SessionCookie {
  return { name: secure ? '__Host-llmgw_session' : 'llmgw_session', secure };
}

export function setSession(reply: FastifyReply, c: SessionCookie, token: string, expiresAtMs: number): void {
  reply.setCookie(c.name, token, { httpOnly: true, secure: c.secure, sameSite: 'lax', path: '/', expires: new Date(expiresAtMs) });
}

export function clearSession(reply: FastifyReply, c: SessionCookie): void {
  reply.clearCookie(c.name, { httpOnly: true, secure: c.secure, sameSite: 'lax', path: '/' });
}

/**
 * Reads the person behind the request's session cookie from accounting
 * (every request: a revoked or suspended session is refused on the next one).
 */
export async function loadPerson(
  req: FastifyRequest,
  reply: FastifyReply,
  acc: AccountingClient,
  c: SessionCookie,
): Promise<{ person?: Person; token?: string }> {
  const token = req.cookies[c.name];
  if (!token) return {};
  try {
    const s = await acc.account<accountingV1.SessionInfo__Output>('GetSession', { token });
    return { person: s.account ?? undefined, token };
  } catch (e) {
    if (isLlmgwError(e) && e.code === 'LLMGW_ERR_SESSION_INVALID') {
      clearSession(reply, c);
      return {};
    }
    throw e;
  }
}
