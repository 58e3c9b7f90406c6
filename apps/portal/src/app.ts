import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import fstatic from '@fastify/static';
import { isLlmgwError } from '@llmgw/errors';
import Fastify, { type FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { registerAdmin } from './admin';
import { registerChat } from './chat';
import { registerMe } from './me';
import { registerPublic } from './public';
import { registerTraffic } from './traffic';
import { makeRenderer, portalDir } from './render';
import { loadPerson, sessionCookie, type Person } from './session';
import type { Ctx, PortalDeps } from './context';

export { requirePerson, type Ctx, type PortalDeps } from './context';

/**
 * Every page's security headers (docs/portal.md, "Security"): a strict
 * content security policy (scripts and styles from this origin only, no
 * inline script), no framing, no referrer (claim links carry their token in
 * the fragment, which is never sent anyway).
 */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

declare module 'fastify' {
  interface FastifyRequest {
    person?: Person;
    sessionToken?: string;
  }
}

const assetOpts = { maxAge: '7d', immutable: true, decorateReply: false, index: false } as const;

export async function buildApp(d: PortalDeps): Promise<FastifyInstance> {
  const secure = d.cfg.public_url?.startsWith('https://') ?? false;
  const app = Fastify({ logger: false, bodyLimit: 256 * 1024, trustProxy: true });
  const render = makeRenderer();
  const dir = portalDir();
  await app.register(cookie, { secret: d.cfg.cookie_secret ?? randomBytes(32).toString('hex') });
  await app.register(formbody);
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: secure ? '__Host-llmgw_csrf' : 'llmgw_csrf',
    cookieOpts: { signed: true, httpOnly: true, sameSite: 'strict', secure, path: '/' },
    getToken: (req) => (req.body as Record<string, string> | undefined)?._csrf ?? (req.headers['x-csrf-token'] as string | undefined),
  });
  // Vendored libraries straight from node_modules, and the portal's own script and styles; cached a week.
  await app.register(fstatic, { root: dirname(require.resolve('htmx.org/dist/htmx.min.js')), prefix: '/assets/htmx/', ...assetOpts });
  await app.register(fstatic, { root: join(dirname(require.resolve('uplot/package.json')), 'dist'), prefix: '/assets/uplot/', ...assetOpts });
  await app.register(fstatic, { root: join(dir, 'assets'), prefix: '/assets/', maxAge: '1h', decorateReply: false, index: false });

  const c = sessionCookie(secure);
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('content-security-policy', CSP);
    reply.header('x-frame-options', 'DENY');
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
  app.addHook('preHandler', async (req, reply) => {
    if (req.url.startsWith('/assets/')) return;
    const s = await loadPerson(req, reply, d.accounting, c);
    req.person = s.person;
    req.sessionToken = s.token;
  });
  // CSRF on every state-changing request (every POST), whatever the route.
  app.addHook('preHandler', (req, reply, done) => {
    if (req.method === 'GET' || req.method === 'HEAD') return done();
    app.csrfProtection(req, reply, done);
  });

  const ctx: Ctx = {
    ...d,
    cookie: c,
    page(req, reply, view, data = {}, status = 200) {
      const csrfToken = reply.generateCsrf();
      const html = render(view, { title: d.cfg.title, person: req.person, csrf: csrfToken, path: req.url.split('?')[0], ...data });
      return reply.status(status).type('text/html; charset=utf-8').send(html);
    },
  };
  app.setErrorHandler((err, req, reply) => {
    const e = err as Error & { statusCode?: number; code?: string };
    let status = e.statusCode && e.statusCode >= 400 ? e.statusCode : 500;
    let message = status < 500 ? e.message : 'something went wrong; the portal log has the details';
    if (isLlmgwError(e)) {
      status = e.httpStatus;
      message = e.message;
    }
    if (e.code === 'FST_CSRF_INVALID_TOKEN' || e.code === 'FST_CSRF_MISSING_SECRET')
      message = 'the form expired or did not come from this site; reload the page and try again';
    if (status >= 500) d.log.warn({ err: { message: e.message, code: e.code }, method: req.method, route: req.routeOptions?.url }, 'portal request failed');
    if (req.headers.accept?.includes('application/json') || req.url.endsWith('.json') || req.url.startsWith('/chat/'))
      return reply.status(status).send({ error: { message, code: isLlmgwError(e) ? e.code : e.code } });
    return ctx.page(req, reply, 'error', { message }, status);
  });

  registerPublic(app, ctx);
  registerMe(app, ctx);
  registerChat(app, ctx);
  registerAdmin(app, ctx);
  registerTraffic(app, ctx);
  return app;
}
