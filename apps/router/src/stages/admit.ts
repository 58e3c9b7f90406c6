import { LlmgwError, type ErrorCode } from '@llmgw/errors';
import type { EndpointView } from '@llmgw/scheduling';
import type { RequestContext, RouterState } from './context';
import { pinnedReplica } from './pin';

/**
 * Stage 5, admit: the first model in the chain with a usable endpoint is
 * the one to serve; its pools are the admission candidates, and the
 * request waits in its band's queue (local or the admission service) for a
 * lease. Refusals: queue full, TTL, displaced (429/503 with Retry-After),
 * or the client gone while waiting.
 */
export async function admit(s: RouterState, c: RequestContext): Promise<void> {
  const model = c.model!;
  // Used only to find the serving model and its candidate pools: scheduling rebuilds the views
  // after admission, because requests granted while this one waited changed the inflight counts.
  let firstViews: EndpointView[] | undefined;
  const find = () =>
    c.chain.findIndex((m) => {
      const vs = s.views(m);
      if (!vs.some((v) => !v.draining && v.available)) return false;
      firstViews = vs;
      return true;
    });
  c.chainIdx = find();
  // On demand: the model itself has no replica yet. Ask for one; with no fallback to serve
  // meanwhile, hold briefly for it (throws model_loading when it does not come up in time).
  if (c.chainIdx !== 0 && s.onDemand?.isOnDemand(model)) {
    if (c.chainIdx > 0) s.onDemand.touch(model, true);
    else if (await s.onDemand.hold(model, () => s.views(model).some((v) => !v.draining && v.available), c.signal)) c.chainIdx = find();
  }
  if (c.chainIdx < 0) {
    throw new LlmgwError('LLMGW_ERR_NO_ENDPOINT', `no usable endpoint serves ${model}${c.chain.length > 1 ? ` or its fallbacks (${c.chain.slice(1).join(', ')})` : ''}`, {
      retryAfterSeconds: Math.max(1, s.cfg.cooldown_seconds),
    });
  }
  c.servedModel = c.chain[c.chainIdx];
  s.onDemand?.touch(c.servedModel);

  const usable = firstViews!.filter((v) => !v.draining && v.available);
  // A pinned replica is only reachable inside its own pool: admission must not grant another one.
  const pinned = usable.find((v) => v.id === pinnedReplica(s, c));
  const candidatePools = pinned ? [pinned.pool] : [...new Map(usable.sort((a, b) => b.poolPriority - a.poolPriority).map((v) => [v.pool, v])).keys()];
  const tenant = c.principal?.projectId ?? c.header(s.cfg.tenant_header) ?? 'default';
  const acq = await s.admission.acquire(
    { requestId: c.reqId, band: c.band, tenant, model: c.servedModel, candidatePools, estimatedTokens: c.estimatedTokens, deadlineMs: Date.now() + s.cfg.admission.queue_ttl },
    c.signal,
  );
  c.queueMs = acq.queuedMs;
  if (acq.kind === 'rejected') {
    if (acq.reason === 'client_gone') {
      c.clientGone = true;
      throw new LlmgwError('LLMGW_ERR_ADMISSION_CANCELLED', acq.message);
    }
    const code: ErrorCode = acq.reason === 'ttl' ? 'LLMGW_ERR_ADMISSION_TTL' : acq.reason === 'displaced' ? 'LLMGW_ERR_ADMISSION_DISPLACED' : 'LLMGW_ERR_ADMISSION_QUEUE_FULL';
    throw new LlmgwError(code, acq.message, { retryAfterSeconds: acq.retryAfterSeconds ?? (acq.reason === 'ttl' ? undefined : 1) });
  }
  c.lease = acq.lease;
}
