import { LlmgwError } from '@llmgw/errors';
import type { AttemptInput, AttemptResult } from '../proxy';
import type { ProviderOutcome } from './metrics';
import { ProviderResponse } from './response';
import { providerUrl, type ProviderUpstream, type Providers } from './upstreams';

/** What a provider attempt needs besides the replica attempt's input. */
export interface ProviderAttemptFacts {
  /** The API path the client called (`/v1/chat/completions`). */
  apiPath: string;
  /** The catalog model the answer is renamed back to. */
  model: string;
  /** The router's prompt estimate, the prompt tokens counted when the provider reports no usage. */
  estimatedPromptTokens: number;
}

/**
 * One attempt at an external provider (docs/models.md, "Providers"): the
 * replica attempt's input sent to the provider's URL with its key, through its
 * own connection pool and under its own timeouts, the answer renamed back to the
 * catalog model; `settle` then normalises the result: any error of the
 * provider's own counts against its breaker (a refused key is the router's
 * configuration, not the client's), the key is cut out of every message it
 * might echo, usage is counted by the router when the provider sent none, and
 * the outcome and latency go to its metrics.
 */
export function providerAttempt(
  providers: Providers,
  p: ProviderUpstream,
  base: AttemptInput,
  facts: ProviderAttemptFacts,
): { input: AttemptInput; settle(r: AttemptResult): AttemptResult } {
  const rewrite = new ProviderResponse(p.cfg.model, facts.model);
  const headers = { ...base.headers };
  delete headers.authorization;
  const authorization = providers.authorization(p.id);
  if (authorization !== undefined) headers.authorization = authorization;
  const input: AttemptInput = {
    ...base,
    url: providerUrl(p, facts.apiPath),
    headers,
    agent: p.agent,
    timeouts: { firstToken: p.cfg.first_token_timeout, total: p.cfg.total_timeout, idle: base.timeouts.idle },
    rewrite,
  };
  return {
    input,
    settle(r) {
      const out = normalise(r, { key: p.key, from: p.cfg.model, to: facts.model }, rewrite, facts.estimatedPromptTokens);
      const outcome = outcomeOf(out);
      providers.metrics.requests.inc({ provider: p.model, outcome });
      if (outcome !== 'client_gone' && outcome !== 'client_error') providers.observe(p.id, outcome !== 'ok');
      if ((out.kind === 'served' || out.kind === 'client_gone') && out.ttftMs !== undefined)
        providers.metrics.ttfb.observe({ provider: p.model }, out.ttftMs / 1000);
      return out;
    },
  };
}

/** What an error message must not show: the key, and the provider's name for the model (the catalog's instead). */
interface Scrub {
  key?: string;
  from: string;
  to: string;
}

function normalise(r: AttemptResult, scrub: Scrub, rewrite: ProviderResponse, promptTokens: number): AttemptResult {
  if (r.kind === 'retry') return { ...r, error: scrubbed(r.error, scrub) };
  if (r.kind === 'error') {
    let error = scrubbed(r.error, scrub);
    // The provider not knowing the model is the router's configuration, not the client's request.
    if (error.code === 'LLMGW_ERR_MODEL_NOT_FOUND')
      error = new LlmgwError('LLMGW_ERR_UPSTREAM_ERROR', `the provider does not serve ${scrub.to}: ${error.message}`);
    // 401/403/402 and other refusals mapped to a 502 are the provider's or the router's doing, never the client's.
    return { kind: 'error', error, endpointFault: r.endpointFault || error.code === 'LLMGW_ERR_UPSTREAM_ERROR' };
  }
  const cut = r.kind === 'served' && r.cut ? { ...r.cut, error: scrubbed(r.cut.error, scrub) } : undefined;
  const usage =
    r.usage ?? (r.kind === 'client_gone' || r.status < 300 ? { promptTokens, completionTokens: rewrite.completionTokens, cachedTokens: 0 } : undefined);
  return r.kind === 'served' ? { ...r, usage, ...(cut ? { cut } : {}) } : { ...r, usage };
}

/** The error without the key in its message (a provider may echo what it was sent), naming the catalog model. */
function scrubbed(e: LlmgwError, { key, from, to }: Scrub): LlmgwError {
  let message = key ? e.message.split(key).join('[redacted]') : e.message;
  message = message.split(from).join(to);
  if (message === e.message) return e;
  return new LlmgwError(e.code, message, { param: e.param, retryAfterSeconds: e.retryAfterSeconds });
}

function outcomeOf(r: AttemptResult): ProviderOutcome {
  switch (r.kind) {
    case 'retry':
      return r.reason === 'connect' ? 'connect' : 'overloaded';
    case 'error':
      return r.error.code === 'LLMGW_ERR_UPSTREAM_TIMEOUT' ? 'timeout' : r.endpointFault ? 'error' : 'client_error';
    case 'client_gone':
      return 'client_gone';
    default:
      return r.cut ? 'cut' : 'ok';
  }
}
