import * as grpc from '@grpc/grpc-js';
import { HEALTH_SERVICE, HealthService, checkHealth, clientCredentials, createServer, listen, shutdown } from './index';
import { waitUntil } from '@llmgw/contracts/wait';

describe('HealthService', () => {
  let server: grpc.Server;
  let addr: string;
  const health = new HealthService('NOT_SERVING');

  beforeAll(async () => {
    server = createServer();
    health.addTo(server);
    addr = `127.0.0.1:${await listen(server, '127.0.0.1', 0)}`;
  });
  afterAll(() => shutdown(server, 500));

  it('Check reports the server status as set', async () => {
    expect(await checkHealth(addr, clientCredentials())).toBe('NOT_SERVING');
    health.set('', 'SERVING');
    expect(await checkHealth(addr, clientCredentials())).toBe('SERVING');
  });

  it('Watch streams the current status, then every change', async () => {
    const Client = grpc.makeGenericClientConstructor(HEALTH_SERVICE, 'Health');
    const c = new Client(addr, clientCredentials());
    const seen: string[] = [];
    const s = (c as any).Watch({ service: 'llmgw.x.v1.X' }) as grpc.ClientReadableStream<{ status: string }>;
    s.on('error', () => undefined);
    s.on('data', (m) => seen.push(m.status));
    await new Promise((r) => s.once('data', r));
    health.set('llmgw.x.v1.X', 'SERVING');
    health.set('llmgw.x.v1.X', 'NOT_SERVING');
    await waitUntil(() => seen.length >= 3, 'three statuses', { seen: () => seen });
    s.cancel();
    c.close();
    expect(seen).toEqual(['SERVICE_UNKNOWN', 'SERVING', 'NOT_SERVING']);
  });

  it('listen rejects when the port is taken', async () => {
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined); // grpc-js logs the failed bind
    const other = createServer();
    await expect(listen(other, '127.0.0.1', Number(addr.split(':')[1]))).rejects.toThrow();
    other.forceShutdown();
    quiet.mockRestore();
  });
});
