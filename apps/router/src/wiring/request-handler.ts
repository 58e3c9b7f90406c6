import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { extractTrace, inSpan, requestIdFrom, SpanKind, tracingRegistered } from '@llmgw/observability';
import { API, type ApiKind } from '../api';
import { admit, attemptUpstream, authenticate, fail, finish, parse, RequestContext, reserveQuota, resolveModel, type RouterState } from '../stages';

/** One stage of the request path; a synchronous stage returns nothing and is not awaited. */
type Stage = readonly [name: string, run: (s: RouterState, c: RequestContext, body: Buffer | undefined) => void | Promise<void>];

/** The stages in order (stages/index.ts); `finish` runs after them whatever happened. */
const STAGES: readonly Stage[] = [
  ['authenticate', (s, c) => authenticate(s, c)],
  ['parse', (s, c, body) => parse(s, c, body)],
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
async function runStages(s: RouterState, c: RequestContext, body: Buffer | undefined, traced: boolean): Promise<void> {
  try {
    for (const [name, run] of STAGES) {
      const r = traced ? inSpan(`router.${name}`, { 'llmgw.stage': name }, () => run(s, c, body)) : run(s, c, body);
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
 * The client API handler of one API kind: runs a request through the stages
 * in order (stages/index.ts); with a tracing SDK, one server span per request
 * continuing the client's traceparent and one child span per stage.
 */
export function requestHandler(state: RouterState, kind: ApiKind): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const route = API[kind].path;
  return async (req, reply) => {
    reply.hijack();
    const res = reply.raw;
    const c = new RequestContext(kind, requestIdFrom(req.raw.headers['x-request-id']), req.raw as IncomingMessage, res);
    res.on('close', () => {
      if (!res.writableFinished) c.abort.abort();
    });
    const body = req.body as Buffer | undefined;
    if (!tracingRegistered()) return runStages(state, c, body, false);
    await inSpan(
      `router ${kind}`,
      { 'http.route': route, 'llmgw.request_id': c.reqId },
      async (span) => {
        try {
          await runStages(state, c, body, true);
        } finally {
          span.setAttribute('http.response.status_code', c.status);
        }
      },
      { kind: SpanKind.SERVER, parent: extractTrace(req.raw.headers) },
    );
  };
}
