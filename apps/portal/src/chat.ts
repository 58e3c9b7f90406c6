import type { accountingV1, controlV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { requirePerson, type Ctx } from './context';
import type { Person } from './session';

/** Names of the keys `/chat` mints for a person (shown apart on their profile). */
export const CHAT_KEY_PREFIX = 'portal-chat-';

/**
 * `/chat` (docs/portal.md): the browser sends its messages to the portal
 * with its session; the portal sends them on through a router's ordinary
 * /v1/chat/completions with a short-lived key it minted for the person (in
 * their project, stored hashed like every key, revoked with them), so
 * limits, admission band, budget and the usage ledger apply as to any
 * request. The browser never sees the key.
 */
export function registerChat(app: FastifyInstance, c: Ctx): void {
  const now = c.now ?? Date.now;
  const keys = new Map<string, { secret: string; expiresAt: number }>();

  const keyFor = async (p: Person, token: string): Promise<string> => {
    const have = keys.get(p.id);
    if (have && have.expiresAt - 5 * 60_000 > now()) return have.secret;
    const expiresAt = now() + c.cfg.chat_key_ttl;
    const k = await c.accounting.account<accountingV1.CreatedKey__Output>('IssueKey', {
      token,
      name: `${CHAT_KEY_PREFIX}${now().toString(36)}`,
      expiresAtMs: expiresAt,
    });
    keys.set(p.id, { secret: k.secret, expiresAt });
    if (keys.size > 10_000) keys.delete(keys.keys().next().value!);
    return k.secret;
  };

  app.get('/chat', async (req, reply) => {
    const p = requirePerson(req, reply);
    if (!p) return reply;
    const models = c.control
      ? (await c.control.unary<controlV1.ListModelsResponse__Output>('ListModels', {}).catch(() => ({ models: [] }))).models.map((m) => m.name)
      : [];
    return c.page(req, reply, 'chat', { models });
  });

  app.post('/chat/stream', async (req, reply) => {
    const p = req.person;
    if (!p) throw new LlmgwError('LLMGW_ERR_SESSION_INVALID', 'sign in first');
    const body = req.body as { model?: unknown; messages?: unknown };
    if (typeof body?.model !== 'string' || !Array.isArray(body.messages) || body.messages.length > 100) {
      throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'model (a string) and messages (at most 100) are required');
    }
    const messages = body.messages.map((m: { role?: unknown; content?: unknown }) => ({
      role: m?.role === 'assistant' ? 'assistant' : 'user',
      content: String(m?.content ?? '').slice(0, 32_000),
    }));
    const key = await keyFor(p, req.sessionToken!);
    const ac = new AbortController();
    req.raw.on('close', () => ac.abort());
    const res = await fetch(new URL('/v1/chat/completions', c.cfg.router_url), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-llmgw-client': 'portal-chat' },
      body: JSON.stringify({ model: body.model, messages, stream: true, stream_options: { include_usage: true } }),
      signal: ac.signal,
    });
    if (res.status === 401) keys.delete(p.id);
    reply.status(res.status);
    reply.header('content-type', res.headers.get('content-type') ?? 'text/event-stream');
    for (const [k, v] of res.headers) if (k.startsWith('x-llmgw-') || k === 'x-request-id' || k === 'retry-after') reply.header(k, v);
    return reply.send(res.body ? Readable.fromWeb(res.body as never) : '');
  });
}
