import type { RequestContext, RouterState } from './context';

/**
 * Stage 1, authenticate: the bearer key → the key's principal (limits,
 * band, allowlist). With tenancy off there is no principal. Refusals
 * (401 missing/invalid key, 503 accounting unreachable for an unknown key)
 * are thrown by the tenancy implementation (tenancy/keys.ts).
 */
export async function authenticate(s: Pick<RouterState, 'tenancy'>, c: RequestContext): Promise<void> {
  c.principal = await s.tenancy.authenticate(c.raw.headers.authorization);
}
