import { Agent, request } from 'node:http';
import { listeningSockets } from '@llmgw/testing';
import { start, type RunningRouter } from '../src/main';
import { chatJson, fakeUpstream, silentLog, type FakeUpstream } from './helpers';

// The router binds its client port `listen_sockets` times (docs/configuration.md#listeners-and-limits).
const [major, minor] = process.versions.node.split('.').map(Number);
const SHARES = major > 22 || (major === 22 && minor >= 12);

/** Listening TCP sockets on `port`, read from the kernel's tables. */
const listening = (port: number): number => listeningSockets(port).length;

function post(port: number, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
  });
}

describe('the client listener', () => {
  let up: FakeUpstream;
  beforeAll(async () => {
    up = await fakeUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(chatJson('hello'));
    });
  });
  afterAll(() => up?.close());

  async function router(extra: object): Promise<RunningRouter> {
    return start({
      log: silentLog(),
      config: { listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', scrape_interval: 60_000, endpoints: [{ name: 'a', url: up.url, model: 'm' }], ...extra },
    });
  }

  it('binds listen_sockets sockets on its port (8 by default), serves through all of them and closes every one', async () => {
    const r = await router({});
    const port = Number(new URL(r.url).port);
    try {
      expect(listening(port)).toBe(SHARES ? 8 : 1);
      // 32 connections of their own: the kernel spreads them over the sockets; every one is served.
      const agent = new Agent({ keepAlive: false });
      const codes = await Promise.all(Array.from({ length: 32 }, () => post(port, agent)));
      agent.destroy();
      expect(codes.every((c) => c === 200)).toBe(true);
    } finally {
      await r.close();
    }
    expect(listening(port)).toBe(0);
  });

  it('binds one socket with listen_sockets: 1', async () => {
    const r = await router({ listen_sockets: 1 });
    try {
      expect(listening(Number(new URL(r.url).port))).toBe(1);
    } finally {
      await r.close();
    }
  });
});
