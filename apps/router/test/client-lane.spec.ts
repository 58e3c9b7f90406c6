import type { LedgerRecord } from '@llmgw/stores';
import { waitUntil } from '@llmgw/testing';
import { start, type RunningRouter } from '../src/main';
import { chatJson, fakeUpstream, silentLog, type FakeUpstream } from './helpers';
import { keyWith, recordUsage, type RecordingLedger } from './tenancy-with-keys';
import { rawRequest } from './raw-http';

// The client lane (src/wiring/client-lane.ts) against the fastify route it stands in for: the same
// answers, the durable-usage hold on the lane, and nothing held for a request refused before its stages.
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());
const ledger: RecordingLedger = recordUsage();
const KEY = keyWith({}, 'lane');
const LIMIT = 16 * 1024;

describe('the client lane', () => {
  let up: FakeUpstream;
  let router: RunningRouter;
  // While set, each ledger append waits for it (the record stays out of the ledger).
  let gate: Promise<void> | undefined;
  const waiting = new Set<string>();
  const append = ledger.append.bind(ledger);
  ledger.append = async (rec: LedgerRecord) => {
    if (gate) {
      waiting.add(rec.requestId);
      await gate;
    }
    return append(rec);
  };

  beforeAll(async () => {
    up = await fakeUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(chatJson('hello'));
    });
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 60_000,
        body_limit_bytes: LIMIT,
        body_discard_limit_bytes: 2 * LIMIT,
        tenancy: { enabled: true, durable_usage: true },
        endpoints: [{ name: 'a', url: up.url, model: 'm' }],
      },
    });
  });
  afterAll(async () => {
    await router?.close();
    await up?.close();
  });

  const chat = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

  it('answers as the fastify route does', async () => {
    const viaLane = await fetch(`${router.url}/v1/chat/completions?trace=1`, { method: 'POST', headers: { ...headers, 'x-request-id': 'lane-1' }, body: chat });
    const viaFastify = await router.core.client.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...headers, 'x-request-id': 'route-1' },
      payload: chat,
    });
    expect(viaLane.status).toBe(200);
    expect(viaFastify.statusCode).toBe(200);
    expect(((await viaLane.json()) as any).choices[0].message.content).toBe('hello');
    expect(viaFastify.json().choices[0].message.content).toBe('hello');
    expect(viaLane.headers.get('x-request-id')).toBe('lane-1');
    expect(viaFastify.headers['x-request-id']).toBe('route-1');
    await waitUntil(() => ledger.records.some((r) => r.requestId === 'lane-1') && ledger.records.some((r) => r.requestId === 'route-1'), 'both usage records');
    // A body over the limit: the same error JSON either way.
    const big = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(LIMIT) }] });
    const laneBig = await fetch(`${router.url}/v1/chat/completions`, { method: 'POST', headers, body: big });
    const routeBig = await router.core.client.inject({ method: 'POST', url: '/v1/chat/completions', headers, payload: big });
    expect([laneBig.status, routeBig.statusCode]).toEqual([413, 413]);
    expect(((await laneBig.json()) as any).error).toEqual(routeBig.json().error);
  });

  it("holds a response's last bytes until its usage record is in the ledger", async () => {
    let open!: () => void;
    gate = new Promise<void>((r) => (open = r));
    try {
      let done = false;
      const res = fetch(`${router.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers, 'x-request-id': 'held-1' }, body: chat }).then(
        async (r) => {
          const text = await r.text();
          done = true;
          return text;
        },
      );
      // The response has ended at the router and its record waits at the gate.
      await waitUntil(() => waiting.has('held-1'), 'the usage record of held-1 to reach the ledger');
      // Requests refused before their stages are never held, even while no record can be written.
      const tooBig = await rawRequest(
        router.url,
        `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${KEY}\r\ncontent-length: ${4 * LIMIT}\r\n\r\n{`,
      );
      expect(tooBig.status).toBe(413);
      // Refused before it was all sent: the connection closes after the answer instead of draining it.
      expect(tooBig.headers.connection).toBe('close');
      expect((await fetch(`${router.url}/v1/nope`, { method: 'POST', headers, body: chat })).status).toBe(404);
      expect((await fetch(`${router.url}/v1/chat/completions`, { method: 'POST', body: chat })).status).toBe(401);
      expect(done).toBe(false);
      open();
      expect(JSON.parse(await res).choices[0].message.content).toBe('hello');
      expect(ledger.records.map((r) => r.requestId)).toContain('held-1');
    } finally {
      gate = undefined;
      open();
    }
  });
});
