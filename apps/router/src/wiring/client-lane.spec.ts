import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { clientLaneServer, type LaneHandler } from './client-lane';

// The client port's server: which requests take the lane and which go to fastify.
describe('clientLaneServer', () => {
  let server: Server;
  let base: string;
  const lanes = new Map<string, LaneHandler>();
  beforeAll(async () => {
    lanes.set('/v1/chat/completions', (req, res) => res.end(`lane ${req.method} ${req.url}`));
    server = clientLaneServer(lanes)((req, res) => res.end(`fastify ${req.method} ${req.url}`), {
      keepAliveTimeout: 72_000,
      requestTimeout: 0,
      connectionTimeout: 0,
      maxRequestsPerSocket: 7,
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  const send = async (method: string, path: string) => (await fetch(base + path, { method, body: method === 'POST' ? '{}' : undefined })).text();

  it('takes a POST to a lane path, with or without a query string', async () => {
    expect(await send('POST', '/v1/chat/completions')).toBe('lane POST /v1/chat/completions');
    expect(await send('POST', '/v1/chat/completions?api-version=1')).toBe('lane POST /v1/chat/completions?api-version=1');
  });

  it('passes every other request to fastify', async () => {
    expect(await send('GET', '/v1/chat/completions')).toBe('fastify GET /v1/chat/completions');
    expect(await send('POST', '/v1/chat/completions/')).toBe('fastify POST /v1/chat/completions/');
    expect(await send('POST', '/v1/CHAT/completions')).toBe('fastify POST /v1/CHAT/completions');
    expect(await send('POST', '/v1/embeddings')).toBe('fastify POST /v1/embeddings');
    expect(await send('DELETE', '/v1/chat/completions')).toBe('fastify DELETE /v1/chat/completions');
  });

  it('reads lanes added after the server was made', async () => {
    lanes.set('/v1/embeddings', (_req, res) => res.end('embeddings lane'));
    expect(await send('POST', '/v1/embeddings')).toBe('embeddings lane');
    lanes.delete('/v1/embeddings');
  });

  it('keeps the timeouts fastify gives the servers it makes', () => {
    expect(server.keepAliveTimeout).toBe(72_000);
    expect(server.requestTimeout).toBe(0);
    expect(server.timeout).toBe(0);
    expect(server.maxRequestsPerSocket).toBe(7);
  });
});
