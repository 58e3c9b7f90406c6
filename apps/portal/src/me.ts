import type { accountingV1 } from '@llmgw/contracts';
import { isLlmgwError } from '@llmgw/errors';
import type { FastifyInstance } from 'fastify';
import { requirePerson, type Ctx } from './context';
import { CHAT_KEY_PREFIX } from './chat';
import { hourlySeries } from './series';

type Form = Record<string, string | undefined>;
const str = (v: unknown, max = 300) => (typeof v === 'string' ? v.slice(0, max) : '');

const monthStart = (at: number) => {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};

/** `/me`: a person's keys (issue, name, revoke), limits, spend against budgets, and a usage chart. */
export function registerMe(app: FastifyInstance, c: Ctx): void {
  const now = c.now ?? Date.now;

  const profile = async (token: string, person: accountingV1.Account__Output) => {
    const keys = (await c.accounting.account<accountingV1.ListKeysResponse__Output>('ListMyKeys', { token })).keys;
    const mine = new Set(keys.map((k) => k.id));
    const project = person.projectId;
    const scope = { scopeType: 'project', scope: project };
    const projectName = project ? (await c.accounting.call<accountingV1.Project__Output>('GetProject', { ref: project })).name : '';
    const [limit, byKey, byHour] = project
      ? await Promise.all([
          c.accounting.call<accountingV1.Limit__Output>('GetLimit', scope),
          c.accounting.call<accountingV1.QueryUsageResponse__Output>('QueryUsage', { scope, fromMs: monthStart(now()), groupBy: 'key' }),
          c.accounting.call<accountingV1.QueryUsageResponse__Output>('QueryUsage', { scope, fromMs: now() - 24 * 3_600_000, groupBy: 'hour' }),
        ])
      : [undefined, { rows: [] }, { rows: [] }];
    const usage = byKey.rows.filter((r) => mine.has(r.group));
    const spent = usage.reduce((s, r) => s + Number(r.costMicros), 0);
    const requests = usage.reduce((s, r) => s + Number(r.requests), 0);
    return {
      keys: keys.map((k) => ({ ...k, chat: k.name.startsWith(CHAT_KEY_PREFIX) })),
      limit,
      spent,
      requests,
      usage,
      series: hourlySeries(byHour.rows, now() - 24 * 3_600_000, now()),
      projectName,
    };
  };

  app.get('/me', async (req, reply) => {
    const p = requirePerson(req, reply);
    if (!p) return reply;
    return c.page(req, reply, 'me', { me: p, ...(await profile(req.sessionToken!, p)) });
  });

  // JSON of the same, for scripts (GET /me with Accept: application/json is the page).
  app.get('/me.json', async (req, reply) => {
    if (!req.person) return reply.status(401).send({ error: { message: 'sign in first', code: 'LLMGW_ERR_SESSION_INVALID' } });
    const pr = await profile(req.sessionToken!, req.person);
    return { account: req.person, keys: pr.keys, limit: pr.limit, spent_micros: pr.spent, requests: pr.requests, usage: pr.usage };
  });

  app.post('/me/keys', async (req, reply) => {
    const p = requirePerson(req, reply);
    if (!p) return reply;
    try {
      const k = await c.accounting.account<accountingV1.CreatedKey__Output>('IssueKey', { token: req.sessionToken, name: str((req.body as Form).name, 100) });
      return c.page(req, reply, 'claimed', { secret: k.secret, key: k.key });
    } catch (e) {
      if (!isLlmgwError(e) || e.httpStatus >= 500) throw e;
      return c.page(req, reply, 'me', { me: p, error: e.message, ...(await profile(req.sessionToken!, p)) }, e.httpStatus);
    }
  });

  app.post('/me/keys/revoke', async (req, reply) => {
    const p = requirePerson(req, reply);
    if (!p) return reply;
    await c.accounting.account('RevokeMyKey', { token: req.sessionToken, ref: str((req.body as Form).key, 100) });
    return reply.redirect('/me', 303);
  });

  app.post('/me/password', async (req, reply) => {
    const p = requirePerson(req, reply);
    if (!p) return reply;
    const f = req.body as Form;
    try {
      await c.accounting.account('ChangePassword', { token: req.sessionToken, current: str(f.current), next: str(f.next) });
    } catch (e) {
      if (!isLlmgwError(e) || e.httpStatus >= 500) throw e;
      return c.page(req, reply, 'me', { me: p, error: e.message, ...(await profile(req.sessionToken!, p)) }, e.httpStatus);
    }
    return c.page(req, reply, 'message', {
      heading: 'Password changed',
      message: 'Your other sessions have been signed out.',
      link: { href: '/me', text: 'Back to your profile' },
    });
  });
}
