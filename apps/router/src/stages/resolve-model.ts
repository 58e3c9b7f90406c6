import { LlmgwError } from '@llmgw/errors';
import { ServingPlan, type PlanDeps } from '../serving/plan';
import type { RequestContext, RouterState, StageConfig } from './context';
import { pinnedReplica } from './pin';

export { permittedChain } from '../serving/chain';

/** What resolve model reads: the catalog, bands and profiles, and what its serving plan needs. */
export type ResolveState = Pick<RouterState, 'catalog' | 'onDemand' | 'bandNames' | 'profiles'> &
  Omit<PlanDeps, 'cfg'> & { cfg: PlanDeps['cfg'] & Pick<StageConfig, 'default_band' | 'default_profile' | 'tenant_header'> };

/**
 * Stage 3, resolve model: the requested name (or alias) → the canonical
 * model; the priority band (the key's, else `x-llmgw-band`, else the
 * default) and routing profile (`x-llmgw-profile`, the key's, the model's,
 * the default); the token estimate the quota and admission use; and the
 * request's serving plan (serving/plan.ts), which the later stages advance.
 */
export function resolveModel(s: ResolveState, c: RequestContext): void {
  const requested: string = c.body.model;
  c.requested = requested;
  // An adapter is served by its base model, which the allowlist, limits, budgets and price are of (docs/models.md, "Adapters").
  c.adapter = typeof requested === 'string' ? s.catalog.adapter(requested) : undefined;
  const model = c.adapter?.base ?? s.catalog.resolve(requested);
  if (model === undefined) {
    // Before any catalog view was read an unknown name may yet be catalogued: retryable, not a final 404.
    if (s.onDemand && !s.onDemand.loaded()) throw s.onDemand.notLoaded(requested);
    throw new LlmgwError('LLMGW_ERR_MODEL_NOT_FOUND', `The model \`${requested}\` does not exist.`, { param: 'model' });
  }
  c.resolved = model;

  c.band = c.principal ? c.principal.band : (c.header('x-llmgw-band') ?? s.cfg.default_band);
  if (!s.bandNames.includes(c.band)) throw new LlmgwError('LLMGW_ERR_BAND_UNKNOWN', `unknown priority band "${c.band}" (have: ${s.bandNames.join(', ')})`);
  c.profileName = c.header('x-llmgw-profile') ?? c.principal?.routingProfile ?? s.catalog.profileOf(model) ?? s.cfg.default_profile;
  c.profile = s.profiles.get(c.profileName);
  if (!c.profile) throw new LlmgwError('LLMGW_ERR_PROFILE_UNKNOWN', `unknown routing profile "${c.profileName}" (have: ${[...s.profiles.keys()].join(', ')})`);

  c.maxTokens = c.body.max_completion_tokens ?? c.body.max_tokens ?? c.body.max_output_tokens ?? undefined;
  c.estimatedPromptTokens = Math.ceil(c.buf.length / 4);
  c.estimatedTokens = c.estimatedPromptTokens + (c.maxTokens ?? 0);
  const tenant = c.principal?.projectId ?? c.header(s.cfg.tenant_header) ?? 'default';
  c.plan = new ServingPlan(c.adapter ? adapterPlanDeps(s) : s, {
    id: c.reqId,
    model,
    principal: c.principal,
    band: c.band,
    tenant,
    estimatedTokens: c.estimatedTokens,
    pinnedReplica: pinnedReplica(s, c),
    client: c,
  });
}

/** An adapter request is served by its base model only: a fallback has not the adapter (every engine applies adapters, each in its own form). */
function adapterPlanDeps(s: ResolveState): PlanDeps {
  return { ...s, catalog: { chain: (m) => [m] } };
}
