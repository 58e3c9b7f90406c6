import type { RequestContext, RouterState } from './context';
import { permittedChain } from './resolve-model';

/**
 * Stage 4, reserve quota: the allowlist, RPM, TPM and budgets of every
 * scope on the key's chain are checked and reserved in one counter call
 * (tenancy/enabled.ts; 403 off the allowlist, 429 + Retry-After over a
 * limit). A spent budget may switch the request to the zero-priced
 * `budget_fallback_model`; the fallback chain is then built from the model
 * the reservation is for, keeping only models the key may use.
 */
export async function reserveQuota(s: RouterState, c: RequestContext): Promise<void> {
  c.reservation = await s.tenancy.reserve(c.principal, c.model!, c.estimatedTokens);
  c.model = c.reservation.model;
  c.chain = permittedChain(s, c.principal, c.model);
}
