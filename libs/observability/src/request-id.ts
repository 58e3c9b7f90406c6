import { randomUUID } from 'node:crypto';

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Uses the client's x-request-id when it is sane, otherwise generates one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v && VALID.test(v) ? v : randomUUID();
}
