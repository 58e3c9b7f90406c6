import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from '@llmgw/observability';
import { cpuProfile, ProfileBusyError } from './profile';

/** What a readiness callback answers: ready or not, plus fields shown on /readyz. */
export type Readiness = boolean | { ready: boolean; status?: string; [field: string]: unknown };
export type ReadinessCheck = () => Readiness | Promise<Readiness>;

export interface AdminAppOptions {
  registry: Registry;
  /** Identity shown on /healthz. */
  identity: { service: string; version: string; instance: string };
  /** The service's readiness; absent → "starting" (503). */
  readiness(): ReadinessCheck | undefined;
  /** True once shutdown began: /readyz answers 503 "draining" so load balancers stop sending. */
  draining(): boolean;
  /** Longest CPU profile /debug/pprof/profile will take, in seconds. */
  maxProfileSeconds?: number;
}

/**
 * The one admin app every role serves on its admin listener:
 *   GET /metrics                 the service's registry, Prometheus text
 *   GET /healthz                 200 while the process runs (liveness)
 *   GET /readyz                  200 when the readiness callback says ready, else 503; 503 "draining" during shutdown
 *   GET /debug/pprof/profile?seconds=N   a V8 CPU profile (.cpuprofile JSON, opens in Chrome DevTools)
 */
export function createAdminApp(o: AdminAppOptions): FastifyInstance {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const maxSeconds = o.maxProfileSeconds ?? 60;

  app.get('/metrics', async (_req, reply) => reply.header('content-type', o.registry.contentType).send(await o.registry.metrics()));
  app.get('/healthz', async () => ({ status: 'ok', ...o.identity }));
  app.get('/readyz', async (_req, reply) => {
    if (o.draining()) return reply.code(503).send({ status: 'draining' });
    const check = o.readiness();
    if (!check) return reply.code(503).send({ status: 'starting' });
    let r: Readiness;
    try {
      r = await check();
    } catch (e) {
      return reply.code(503).send({ status: 'unavailable', error: (e as Error).message });
    }
    const { ready, status, ...fields } = typeof r === 'boolean' ? { ready: r } : r;
    return reply.code(ready ? 200 : 503).send({ status: status ?? (ready ? 'ready' : 'not ready'), ...fields });
  });
  app.get<{ Querystring: { seconds?: string } }>('/debug/pprof/profile', async (req, reply) => {
    const seconds = req.query.seconds === undefined ? 10 : Number(req.query.seconds);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > maxSeconds) {
      return reply.code(400).send({ error: `seconds must be in (0, ${maxSeconds}]` });
    }
    try {
      const profile = await cpuProfile(seconds * 1000);
      return reply
        .header('content-type', 'application/json')
        .header('content-disposition', `attachment; filename="${o.identity.service}-${Date.now()}.cpuprofile"`)
        .send(profile);
    } catch (e) {
      if (e instanceof ProfileBusyError) return reply.code(409).send({ error: e.message });
      throw e;
    }
  });
  return app;
}
