import type { Principal } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { isModelAllowed } from '@llmgw/tenancy';
import type { RequestContext, RouterState } from './context';

/**
 * Stage 3, resolve model: the requested name (or alias) → the canonical
 * model; the priority band (the key's, else `x-llmgw-band`, else the
 * default) and routing profile (`x-llmgw-profile`, the key's, the model's,
 * the default); and the token estimate the quota and admission use.
 */
export function resolveModel(s: RouterState, c: RequestContext): void {
  const requested: string = c.body.model;
  c.requested = requested;
  c.model = s.catalog.resolve(requested);
  if (c.model === undefined) {
    // Before any catalog view was read an unknown name may yet be catalogued: retryable, not a final 404.
    if (s.onDemand && !s.onDemand.loaded()) throw s.onDemand.notLoaded(requested);
    throw new LlmgwError('LLMGW_ERR_MODEL_NOT_FOUND', `The model \`${requested}\` does not exist.`, { param: 'model' });
  }

  c.band = c.principal ? c.principal.band : c.header('x-llmgw-band') ?? s.cfg.default_band;
  if (!s.bandNames.includes(c.band)) throw new LlmgwError('LLMGW_ERR_BAND_UNKNOWN', `unknown priority band "${c.band}" (have: ${s.bandNames.join(', ')})`);
  c.profileName = c.header('x-llmgw-profile') ?? c.principal?.routingProfile ?? s.catalog.profileOf(c.model) ?? s.cfg.default_profile;
  c.profile = s.profiles.get(c.profileName);
  if (!c.profile) throw new LlmgwError('LLMGW_ERR_PROFILE_UNKNOWN', `unknown routing profile "${c.profileName}" (have: ${[...s.profiles.keys()].join(', ')})`);

  c.maxTokens = c.body.max_completion_tokens ?? c.body.max_tokens ?? c.body.max_output_tokens ?? undefined;
  c.estimatedPromptTokens = Math.ceil(c.buf.length / 4);
  c.estimatedTokens = c.estimatedPromptTokens + (c.maxTokens ?? 0);
}

/**
 * The model followed by the fallbacks (docs/router.md, "Upstream attempts, retries, timeouts") the key may use: a
 * fallback outside the key's allowlist is skipped, never served.
 */
export function permittedChain(s: RouterState, principal: Principal | undefined, model: string): string[] {
  const chain = s.catalog.chain(model);
  return principal ? chain.filter((m, i) => i === 0 || isModelAllowed(principal.limits, m)) : chain;
}
