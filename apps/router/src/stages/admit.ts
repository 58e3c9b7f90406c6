import type { RequestContext } from './context';

/**
 * Stage 5, admit: the serving plan picks the first model in the chain with
 * a usable endpoint that the key may use and pay for; its pools are the
 * admission candidates, and the request waits in its band's queue (local or
 * the admission service) for a lease. Refusals: no usable endpoint (503),
 * queue full, TTL, displaced (429/503 with Retry-After), or the client gone
 * while waiting.
 */
export async function admit(c: RequestContext): Promise<void> {
  try {
    await c.plan!.admit();
  } catch (e) {
    if ((e as { code?: string }).code === 'LLMGW_ERR_ADMISSION_CANCELLED') c.clientGone = true;
    throw e;
  }
}
