import type { accountingV1, controlV1 } from '@llmgw/contracts';
import { isLlmgwError } from '@llmgw/errors';
import type { FastifyInstance } from 'fastify';
import type { Ctx } from './context';
import { clearSession, setSession } from './session';

type Form = Record<string, string | undefined>;
const str = (v: unknown, max = 300) => (typeof v === 'string' ? v.slice(0, max) : '');

/** The landing page, sign-up, sign-in, sign-out and claim links (docs/portal.md). */
export function registerPublic(app: FastifyInstance, c: Ctx): void {
  app.get('/', async (req, reply) => {
    let models: string[] = [];
    if (c.control) {
      models = await c.control
        .unary<controlV1.ListModelsResponse__Output>('ListModels', {})
        .then((r) => r.models.map((m) => m.name))
        .catch(() => []);
    }
    return c.page(req, reply, 'landing', { models });
  });

  app.get('/signup', async (req, reply) => c.page(req, reply, 'signup', { form: {} }));
  app.post('/signup', async (req, reply) => {
    const f = req.body as Form;
    try {
      await c.accounting.account('Signup', { email: str(f.email), name: str(f.name), password: str(f.password) });
    } catch (e) {
      if (!isLlmgwError(e) || e.httpStatus >= 500) throw e;
      return c.page(req, reply, 'signup', { error: e.message, form: { email: str(f.email), name: str(f.name) } }, e.httpStatus);
    }
    return c.page(req, reply, 'message', {
      heading: 'Thanks — you are signed up',
      message: 'An operator approves new accounts; you can sign in once they have.',
    });
  });

  app.get('/signin', async (req, reply) => c.page(req, reply, 'signin', {}));
  app.post('/signin', async (req, reply) => {
    const f = req.body as Form;
    let s: accountingV1.SignInResponse__Output;
    try {
      // A new session id on every sign-in; the one the browser held before (if any) is ended.
      s = await c.accounting.account('SignIn', {
        email: str(f.email),
        password: str(f.password),
        address: req.ip,
        previousToken: req.cookies[c.cookie.name] ?? '',
      });
    } catch (e) {
      if (!isLlmgwError(e) || e.httpStatus >= 500) throw e;
      if (e.retryAfterSeconds) reply.header('retry-after', String(e.retryAfterSeconds));
      return c.page(req, reply, 'signin', { error: e.message, email: str(f.email) }, e.httpStatus);
    }
    setSession(reply, c.cookie, s.token, s.expiresAtMs);
    return reply.redirect(s.account && s.account.role !== 'user' ? '/admin' : '/me', 303);
  });

  app.post('/signout', async (req, reply) => {
    if (req.sessionToken) await c.accounting.account('SignOut', { token: req.sessionToken });
    clearSession(reply, c.cookie);
    return reply.redirect('/', 303);
  });

  // The link is /claim#<token>: the token is in the fragment, which browsers never send, so it is in no
  // request line, log or Referer. The page's script moves it into the form; claiming is a POST.
  app.get('/claim', async (req, reply) => c.page(req, reply, 'claim', {}));
  app.post('/claim', async (req, reply) => {
    const f = req.body as Form;
    const token = str(f.token, 100);
    try {
      if (f.step === 'peek') {
        const p = await c.accounting.account<accountingV1.ClaimResponse__Output>('Claim', { token, peek: true });
        return c.page(req, reply, 'claim', { token, peek: p });
      }
      const r = await c.accounting.account<accountingV1.ClaimResponse__Output>('Claim', { token, password: str(f.password) });
      if (r.kind === 'invite')
        return c.page(req, reply, 'message', {
          heading: 'Your account is ready',
          message: `Sign in as ${r.account?.email ?? ''} with the password you chose.`,
          link: { href: '/signin', text: 'Sign in' },
        });
      return c.page(req, reply, 'claimed', { secret: r.secret, key: r.key });
    } catch (e) {
      if (!isLlmgwError(e) || e.httpStatus >= 500) throw e;
      return c.page(req, reply, 'message', { heading: 'This link does not work', message: e.message }, e.httpStatus);
    }
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
}
