import type { RequestContext } from './context';

/**
 * Stage 4, reserve quota: the allowlist, RPM, TPM and budgets of every
 * scope on the key's chain are checked and reserved in one counter call
 * (tenancy/reserve.ts; 403 off the allowlist, 429 + Retry-After over a
 * limit). A spent budget may switch the request to the zero-priced
 * `budget_fallback_model`; the serving plan then builds the fallback chain
 * from the model the reservation is for, keeping only models the key may use.
 */
export async function reserveQuota(c: RequestContext): Promise<void> {
  await c.plan!.reserve();
}
