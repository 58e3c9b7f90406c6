import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { isLlmgwError, LlmgwError, toHttpError } from '@llmgw/errors';
import { requestIdFrom, type Logger } from '@llmgw/observability';

/**
 * The client port's HTTP layer: what happens before a request reaches the
 * stages, and every error the HTTP machinery itself produces, all answered
 * in OpenAI's error JSON with an `x-request-id`:
 * - malformed requests caught by Node's parser (request line, header
 *   syntax, content-length, chunked framing) → 400 `malformed_request`;
 *   headers over Node's limit → 431; a request not sent in time → 408;
 * - one rule for content types: a POST body is read as JSON whatever
 *   `Content-Type` says (curl -d sends form-encoded; that works);
 * - a body over `body_limit_bytes` → 413, after reading and dropping the
 *   rest of it up to `body_discard_limit_bytes`, so a client still sending
 *   reads the 413 instead of a reset connection;
 * - unknown routes → 404 (405 for a known path with the wrong method),
 *   only after authentication when tenancy is on.
 */

/** The error from Node's HTTP parser or socket, as a catalogue error. */
export function clientErrorOf(err: Error & { code?: string }): LlmgwError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new LlmgwError('LLMGW_ERR_REQUEST_HEADERS_TOO_LARGE', 'the request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new LlmgwError('LLMGW_ERR_REQUEST_TIMEOUT', 'the request was not received in time');
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return new LlmgwError('LLMGW_ERR_REQUEST_MALFORMED', 'malformed HTTP request: bad content-length header');
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return new LlmgwError('LLMGW_ERR_REQUEST_MALFORMED', 'malformed HTTP request: bad chunked framing');
    case 'HPE_INVALID_METHOD':
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
      return new LlmgwError('LLMGW_ERR_REQUEST_MALFORMED', 'malformed HTTP request line');
    default:
      return new LlmgwError('LLMGW_ERR_REQUEST_MALFORMED', `malformed HTTP request${err.code ? ` (${err.code})` : ''}`);
  }
}

/** Fastify's `clientErrorHandler`: answers what Node's parser refused, then closes. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // Nothing to answer on a reset or half-closed socket, nor after a response started on it.
  if (
    err.code === 'ECONNRESET' ||
    err.code === 'EPIPE' ||
    !socket.writable ||
    (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
  ) {
    socket.destroy();
    return;
  }
  const h = toHttpError(clientErrorOf(err));
  const body = JSON.stringify(h.body);
  const head = [
    `HTTP/1.1 ${h.status} ${STATUS_CODES[h.status] ?? 'Error'}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestIdFrom(undefined)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** Reads a request body up to `limit` bytes; over it, drops the rest up to `discardLimit`, then fails with 413. */
export function readBody(req: IncomingMessage, limit: number, discardLimit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = () => new LlmgwError('LLMGW_ERR_REQUEST_TOO_LARGE', `request body exceeds ${limit} bytes`);
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > discardLimit) {
      // Too large even to drain: answer now; the connection closes after the response.
      reject(tooLarge());
      return;
    }
    const parts: Buffer[] = [];
    let size = 0;
    let over = false;
    const onData = (c: Buffer) => {
      size += c.length;
      if (!over && size <= limit) {
        parts.push(c);
        return;
      }
      if (!over) {
        over = true;
        parts.length = 0;
      }
      if (size > discardLimit) {
        cleanup();
        reject(tooLarge());
      }
    };
    const onEnd = () => {
      cleanup();
      if (over) reject(tooLarge());
      else resolve(parts.length === 1 ? parts[0] : Buffer.concat(parts, size));
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    const onClose = () => {
      if (!req.complete) onError(new LlmgwError('LLMGW_ERR_REQUEST_MALFORMED', 'the client closed the connection before the body was complete'));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** True when arrays/objects in `buf` nest deeper than `max` (strings skipped); linear, no parsing. */
export function jsonDepthExceeds(buf: Buffer, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i];
    if (b === 0x22) {
      // Skip the string, honouring backslash escapes.
      for (i++; i < buf.length && buf[i] !== 0x22; i++) if (buf[i] === 0x5c) i++;
    } else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) return true;
    } else if (b === 0x5d || b === 0x7d) {
      depth--;
    }
  }
  return false;
}

export interface ClientHttpOptions {
  bodyLimit: number;
  discardLimit: number;
  log: Logger;
  /** Paths that exist (any method); a different method on one answers 405. */
  knownPaths: () => Iterable<string>;
  /** Paths that exist on engines but are switched off by config, with why. */
  disabledPaths: ReadonlyMap<string, string>;
  /** Runs before a 404/405 is given, so that an unauthenticated caller learns nothing (throws 401). */
  authenticate: (authorization: string | undefined) => Promise<unknown>;
}

/** Installs the HTTP layer above on the client app. */
export function installClientHttp(app: FastifyInstance, o: ClientHttpOptions): void {
  // One content-type rule: every body is JSON, whatever the header says (a malformed header included).
  // A callback hook, not an async one: no promise per request.
  app.addHook('onRequest', (req, _reply, done) => {
    if (req.headers['content-type'] !== undefined) req.headers['content-type'] = 'application/json';
    done();
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, _payload, done) => {
    readBody(req.raw, o.bodyLimit, o.discardLimit).then(
      (b) => done(null, b),
      (e: Error) => done(e, undefined),
    );
  });

  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, req, reply) => {
    let e: LlmgwError;
    if (isLlmgwError(err)) e = err;
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') e = new LlmgwError('LLMGW_ERR_REQUEST_TOO_LARGE', `request body exceeds ${o.bodyLimit} bytes`);
    else if (err.statusCode && err.statusCode < 500) e = new LlmgwError('LLMGW_ERR_REQUEST_INVALID', err.message);
    else {
      o.log.error({ reqId: req.headers['x-request-id'], err }, 'unhandled router error');
      e = new LlmgwError('LLMGW_ERR_INTERNAL', 'internal error');
    }
    const h = toHttpError(e);
    void reply
      .code(h.status)
      .headers({ ...h.headers, 'x-request-id': requestIdFrom(req.headers['x-request-id']) })
      .send(h.body);
  });

  app.setNotFoundHandler(async (req, reply) => {
    const reqId = requestIdFrom(req.headers['x-request-id']);
    const path = req.url.split('?')[0];
    let e: LlmgwError;
    try {
      await o.authenticate(req.headers.authorization);
      const disabled = o.disabledPaths.get(path);
      if (disabled) e = new LlmgwError('LLMGW_ERR_ROUTE_NOT_FOUND', disabled);
      else if ([...o.knownPaths()].includes(path)) e = new LlmgwError('LLMGW_ERR_METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}`);
      else e = new LlmgwError('LLMGW_ERR_ROUTE_NOT_FOUND', `Unknown request URL: ${req.method} ${path}.`);
    } catch (err) {
      e = isLlmgwError(err) ? err : new LlmgwError('LLMGW_ERR_INTERNAL', 'internal error');
    }
    const h = toHttpError(e);
    return reply
      .code(h.status)
      .headers({ ...h.headers, 'x-request-id': reqId })
      .send(h.body);
  });
}
