import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyServerFactory } from 'fastify';

/** Serves one request on the client lane; it answers every request it is given. */
export type LaneHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The path of a request target: what comes before its query string. */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/**
 * The client port's HTTP server, made through fastify's `serverFactory`: a
 * POST to one of the client API's own paths (exactly, with any query string)
 * goes straight from Node's server to its lane handler, without fastify's
 * request and reply objects, hooks and router; everything else (`GET
 * /v1/models`, `/me`, a wrong method, an unknown path, a path fastify would
 * normalise) goes to fastify as before. The lane handlers apply the same body
 * rules and answer in the same error JSON as the fastify routes (http.ts,
 * request-handler.ts); the cost it saves is in docs/performance.md ("The
 * client lane"). `lanes` may be filled after the server is made.
 *
 * The server gets the timeouts fastify gives a server it makes itself.
 */
export function clientLaneServer(lanes: ReadonlyMap<string, LaneHandler>): FastifyServerFactory<Server> {
  return (fastifyHandler, opts) => {
    const server = createServer((req, res) => {
      if (req.method === 'POST') {
        const lane = lanes.get(pathOf(req.url ?? ''));
        if (lane) return lane(req, res);
      }
      fastifyHandler(req, res);
    });
    server.keepAliveTimeout = opts.keepAliveTimeout as number;
    server.requestTimeout = opts.requestTimeout as number;
    server.setTimeout(opts.connectionTimeout as number);
    if ((opts.maxRequestsPerSocket as number) > 0) server.maxRequestsPerSocket = opts.maxRequestsPerSocket as number;
    return server;
  };
}
