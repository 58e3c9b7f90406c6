import type { AccountingClient } from '@llmgw/accounting-rpc';
import type { ControlClient } from '@llmgw/control-rpc';
import type { Logger } from '@llmgw/observability';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PortalConfig } from './config';
import type { Person, SessionCookie } from './session';

export interface PortalDeps {
  cfg: PortalConfig;
  log: Logger;
  accounting: AccountingClient;
  control?: ControlClient;
  now?: () => number;
}

/** What route modules share: the clients, the renderer and the page helper. */
export interface Ctx extends PortalDeps {
  cookie: SessionCookie;
  page(req: FastifyRequest, reply: FastifyReply, view: string, data?: object, status?: number): FastifyReply;
}

/** Sends a page only to a signed-in person; others are sent to sign in. */
export function requirePerson(req: FastifyRequest, reply: FastifyReply): Person | undefined {
  if (req.person) return req.person;
  void reply.redirect('/signin', 303);
  return undefined;
}
