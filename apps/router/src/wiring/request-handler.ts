import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { extractTrace, inSpan, requestIdFrom, SpanKind } from '@llmgw/observability';
import { API, type ApiKind } from '../api';
import { admit, attemptUpstream, authenticate, fail, finish, parse, RequestContext, reserveQuota, resolveModel, type RouterState } from '../stages';

/**
 * The client API handler of one API kind: runs a request through the stages
 * in order (stages/index.ts), with one server span per request continuing the
 * client's traceparent and one child span per stage.
 */
export function requestHandler(state: RouterState, kind: ApiKind): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const stage = <T>(name: string, fn: () => T | Promise<T>) => inSpan(`router.${name}`, { 'llmgw.stage': name }, fn);
  return async (req, reply) => {
    reply.hijack();
    const res = reply.raw;
    const c = new RequestContext(kind, requestIdFrom(req.raw.headers['x-request-id']), req.raw as IncomingMessage, res);
    res.on('close', () => {
      if (!res.writableFinished) c.abort.abort();
    });
    await inSpan(
      `router ${kind}`,
      { 'http.route': API[kind].path, 'llmgw.request_id': c.reqId },
      async (span) => {
        try {
          await stage('authenticate', () => authenticate(state, c));
          await stage('parse', () => parse(state, c, req.body as Buffer | undefined));
          await stage('resolve_model', () => resolveModel(state, c));
          await stage('reserve_quota', () => reserveQuota(c));
          await stage('admit', () => admit(c));
          await stage('attempt', () => attemptUpstream(state, c));
        } catch (e) {
          fail(state, c, e);
        } finally {
          await stage('finish', () => finish(state, c));
          span.setAttribute('http.response.status_code', c.status);
        }
      },
      { kind: SpanKind.SERVER, parent: extractTrace(req.raw.headers) },
    );
  };
}
