import type { ServerResponse } from 'node:http';
import type { UsageRecord } from '@llmgw/contracts';
import { toHttpError } from '@llmgw/errors';
import type { RouterMetrics } from '../metrics';
import type { CapturedUsage } from '../sse';
import type { RequestContext, RouterState } from './context';

/**
 * Writes an error as OpenAI's error JSON; when the response has already
 * started (mid-stream) the connection is cut instead. Returns the status.
 */
export function sendError(res: ServerResponse, e: unknown, reqId: string, extraHeaders?: Readonly<Record<string, string>>): number {
  const h = toHttpError(e);
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return h.status;
  }
  const body = JSON.stringify(h.body);
  res.writeHead(h.status, {
    ...extraHeaders,
    ...h.headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': reqId,
  });
  res.end(body);
  return h.status;
}

/** A stage threw: answer the client with the error, or note that it is gone. */
export function fail(s: Pick<RouterState, 'log'>, c: RequestContext, e: unknown): void {
  if (c.clientGone || c.left) {
    c.status = 499;
    c.clientGone = true;
    c.res.destroy();
    return;
  }
  // A limited key sees its rate-limit headers on failures after the reservation too.
  c.status = sendError(c.res, e, c.reqId, c.reservation?.rateLimitHeaders);
  if (c.status >= 500) c.logger(s.log).warn({ model: c.model, endpoint: c.endpoint, err: (e as Error).message }, 'request failed');
}

/**
 * Stage 7, finish (always runs, once): the serving plan releases the
 * admission lease and settles the quota reservation against the engine's
 * usage report at the served model's price, the usage record is appended to
 * the ledger (one round trip where the stores allow it), metrics counted and
 * one log line written.
 */
export function finish(s: Pick<RouterState, 'log' | 'metrics' | 'tenancy'>, c: RequestContext): void {
  const durationMs = performance.now() - c.started;
  const usage = c.usage;
  recordMetrics(s.metrics, c.servedModel ?? c.model ?? 'unknown', c.pool ?? 'none', c.status, durationMs, c.ttftMs, usage);
  const rec: UsageRecord = {
    requestId: c.reqId,
    ts: Date.now(),
    keyId: c.principal?.keyId ?? 'anonymous',
    projectId: c.principal?.projectId ?? 'anonymous',
    model: c.model ?? 'unknown',
    servedModel: c.servedModel ?? c.model ?? 'unknown',
    ...(c.adapter && c.adapter.base === (c.servedModel ?? c.model) ? { adapter: c.adapter.name } : {}),
    pool: c.pool,
    status: c.status,
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    cachedTokens: usage?.cachedTokens ?? 0,
    ttftMs: c.ttftMs === undefined ? undefined : Math.round(c.ttftMs),
    durationMs: Math.round(durationMs),
    queueMs: c.queueMs,
  };
  // The plan releases the lease and settles the reservation against the model it served.
  const outcome = { status: c.status, promptTokens: usage?.promptTokens, completionTokens: usage?.completionTokens };
  if (c.plan) c.plan.finish(outcome, usage && { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens }, rec);
  else s.tenancy.recordUsage(rec);
  if (!s.log.isLevelEnabled('info')) return;
  // The request's identity fields inline, in the order a child logger would write them
  // (same line, without building a child logger per request).
  s.log.info(
    {
      reqId: c.reqId,
      keyId: c.principal?.keyId || undefined,
      projectId: c.principal?.projectId || undefined,
      model: c.model,
      servedModel: c.servedModel,
      adapter: c.adapter?.name,
      endpoint: c.endpoint,
      pool: c.pool,
      status: c.status,
      profile: c.profileName,
      decision: c.decision,
      attempts: c.attempts,
      queueMs: c.queueMs,
      ttftMs: c.ttftMs === undefined ? undefined : round1(c.ttftMs),
      durationMs: round1(durationMs),
      promptTokens: usage?.promptTokens,
      completionTokens: usage?.completionTokens,
      clientGone: c.clientGone || undefined,
      streamCut: c.streamCut,
    },
    'request completed',
  );
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

function recordMetrics(
  m: RouterMetrics,
  model: string,
  pool: string,
  status: number,
  durationMs: number,
  ttftMs: number | undefined,
  usage: CapturedUsage | undefined,
): void {
  m.requests.inc({ model, pool, status: String(status) });
  m.duration.observe({ model, pool }, durationMs / 1000);
  if (ttftMs !== undefined) m.ttft.observe({ model, pool }, ttftMs / 1000);
  if (usage) {
    m.tokens.inc({ model, direction: 'prompt' }, usage.promptTokens);
    m.tokens.inc({ model, direction: 'completion' }, usage.completionTokens);
  }
}
