import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LlmgwError } from '@llmgw/errors';
import { extractTrace, inSpan, requestIdFrom, SpanKind, tracingRegistered } from '@llmgw/observability';
import { API, type ApiKind } from '../api';
import { readBody } from '../http';
import { admit, attemptUpstream, authenticate, fail, finish, parse, RequestContext, reserveQuota, resolveModel, sendError, type RouterState } from '../stages';

/** One stage of the request path; a synchronous stage returns nothing and is not awaited. */
type Stage = readonly [name: string, run: (s: RouterState, c: RequestContext) => void | Promise<void>];

/** The stages in order (stages/index.ts); `finish` runs after them whatever happened. */
const STAGES: readonly Stage[] = [
  ['authenticate', (s, c) => authenticate(s, c)],
  // The body's bytes come on the context (serveRequest): never in a suspended frame, which would keep them for the whole answer.
  ['parse', (s, c) => parse(s, c, c.buf)],
  ['resolve_model', (s, c) => resolveModel(s, c)],
  ['reserve_quota', (_s, c) => reserveQuota(c)],
  ['admit', (_s, c) => admit(c)],
  ['attempt', (s, c) => attemptUpstream(s, c)],
];

/**
 * Runs the stages and `finish`. `traced` wraps each in its child span; without a tracing SDK
 * they run directly, and a stage that finishes synchronously costs no promise or event-loop
 * turn (docs/performance.md, "Where a request's CPU goes (V8 profile, everything on)").
 */
async function runStages(s: RouterState, c: RequestContext, traced: boolean): Promise<void> {
  try {
    for (const [name, run] of STAGES) {
      const r = traced ? inSpan(`router.${name}`, { 'llmgw.stage': name }, () => run(s, c)) : run(s, c);
      if (r) await r;
    }
  } catch (e) {
    fail(s, c, e);
  } finally {
    if (traced) await inSpan('router.finish', { 'llmgw.stage': 'finish' }, () => finish(s, c));
    else finish(s, c);
  }
}

/**
 * Serves one client API request whose body has been read: runs it through the
 * stages in order (stages/index.ts); with a tracing SDK, one server span per
 * request continuing the client's traceparent and one child span per stage.
 */
export function serveRequest(state: RouterState, kind: ApiKind, req: IncomingMessage, res: ServerResponse, body: Buffer | undefined): Promise<void> {
  const c = new RequestContext(kind, requestIdFrom(req.headers['x-request-id']), req, res);
  // The durable-usage hold (tenancy.durable_usage): the response's last bytes wait for its usage record.
  state.tenancy.holdEnd?.(c.reqId, res);
  res.on('close', () => {
    if (!res.writableFinished) c.clientLeft();
  });
  // The bytes go on the context, which lets them go once the answer has started (RequestContext.releasePrompt).
  if (body) c.buf = body;
  return tracingRegistered() ? traced(state, c) : runStages(state, c, false);
}

/** The stages in the request's server span. */
function traced(state: RouterState, c: RequestContext): Promise<void> {
  return inSpan(
    `router ${c.kind}`,
    { 'http.route': API[c.kind].path, 'llmgw.request_id': c.reqId },
    async (span) => {
      try {
        await runStages(state, c, true);
      } finally {
        span.setAttribute('http.response.status_code', c.status);
      }
    },
    { kind: SpanKind.SERVER, parent: extractTrace(c.raw.headers) },
  );
}

/** The fastify route handler of one API kind (fastify's `inject`, and any request the client lane passes on). */
export function requestHandler(state: RouterState, kind: ApiKind): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (req, reply) => {
    reply.hijack();
    await serveRequest(state, kind, req.raw, reply.raw, req.body as Buffer | undefined);
  };
}

/**
 * The handler of one API kind on the client lane (wiring/client-lane.ts): reads the body under
 * the same limits as the fastify route's content-type parser (http.ts), answers a body it
 * refuses with the same error JSON, and serves the rest.
 */
export function laneHandler(
  state: RouterState,
  kind: ApiKind,
  limits: { bodyLimit: number; discardLimit: number },
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    readBody(req, limits.bodyLimit, limits.discardLimit)
      .then(
        (body) => serveRequest(state, kind, req, res, body),
        (e: unknown) => {
          // A body refused before it was all read: close the connection after the answer rather than drain it.
          if (!req.complete) res.shouldKeepAlive = false;
          sendError(res, e, requestIdFrom(req.headers['x-request-id']));
        },
      )
      .catch((err: unknown) => {
        // What fastify's error handler does for a route that throws (http.ts).
        state.log.error({ reqId: req.headers['x-request-id'], err }, 'unhandled router error');
        sendError(res, new LlmgwError('LLMGW_ERR_INTERNAL', 'internal error'), requestIdFrom(req.headers['x-request-id']));
      });
  };
}
