import type { Principal } from '@llmgw/contracts';
import { isModelAllowed } from '@llmgw/tenancy';

/**
 * The model followed by its fallbacks (docs/router.md, "The serving plan") that the
 * key may use: a fallback outside the key's allowlist is skipped, never served.
 */
export function permittedChain(catalog: { chain(model: string): string[] }, principal: Principal | undefined, model: string): string[] {
  const chain = catalog.chain(model);
  return principal ? chain.filter((m, i) => i === 0 || isModelAllowed(principal.limits, m)) : chain;
}
