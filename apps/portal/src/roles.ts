import { LlmgwError } from '@llmgw/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { allowed, type Person, type StaffRole } from './session';

/** The person, if their role allows `need`; otherwise 403 (enforced here, whatever the page shows). */
export function mustRole(req: FastifyRequest, reply: FastifyReply, need: StaffRole): Person | undefined {
  if (!req.person) {
    void reply.redirect('/signin', 303);
    return undefined;
  }
  if (!allowed(req.person, need)) throw new LlmgwError('LLMGW_ERR_PERMISSION_DENIED', `this needs the ${need} role (or admin); you are ${req.person.role}`);
  return req.person;
}
