import OpenAI from 'openai';
import type { AcquireResult, AdmissionRequest } from '@llmgw/admission-core';
import type { UsageRecord } from '@llmgw/contracts';
import { start, type RunningRouter } from '../src/main';
import { chatJson, fakeUpstream, silentLog, type FakeUpstream } from './helpers';
import { waitUntil } from '@llmgw/testing';

// The router's contract with its admission and tenancy seams, checked with
// scripted implementations in place of the real ones.
const script: {
  acquire: (req: AdmissionRequest, signal?: AbortSignal) => Promise<AcquireResult>;
  acquired: AdmissionRequest[];
  released: Array<{ status: number; promptTokens?: number; completionTokens?: number } | undefined>;
  usage: UsageRecord[];
  settled: Array<{ id: string; usage: unknown }>;
  reserveModel?: string;
} = { acquire: async () => granted(0), acquired: [], released: [], usage: [], settled: [] };

function granted(queuedMs: number, pool = 'default'): AcquireResult {
  return { kind: 'granted', pool, queuedMs, lease: { id: 'l', pool, release: (o) => script.released.push(o) } };
}

jest.mock('../src/admission', () => ({
  createAdmission: () => ({
    mode: 'local',
    degraded: false,
    acquire: (req: AdmissionRequest, signal?: AbortSignal) => {
      script.acquired.push(req);
      return script.acquire(req, signal);
    },
  }),
}));

jest.mock('../src/tenancy', () => ({
  createTenancy: () => ({
    enabled: false,
    authenticate: async () => undefined,
    reserve: async (_p: unknown, model: string) => ({ id: `r${script.settled.length}`, model: script.reserveModel ?? model }),
    settle: (r: { id: string }, usage: unknown) => script.settled.push({ id: r.id, usage }),
    recordUsage: (rec: UsageRecord) => script.usage.push(rec),
    close: async () => undefined,
  }),
}));

describe('router seams', () => {
  let up: FakeUpstream;
  let router: RunningRouter;
  let client: OpenAI;
  const MSG = { model: 'm', messages: [{ role: 'user' as const, content: 'hello there' }], max_tokens: 10 };

  beforeAll(async () => {
    up = await fakeUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(chatJson('ok', { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 }));
    });
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        admission: { mode: 'local' },
        cooldown_seconds: 0,
        models: [{ name: 'm' }, { name: 'cheap' }],
        endpoints: [
          { name: 'a', url: up.url, model: 'm', pool: 'h100', priority: 10 },
          { name: 'b', url: up.url, model: 'm', pool: 'a100', priority: 5 },
          { name: 'c', url: up.url, model: 'cheap' },
        ],
      },
    });
    client = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'x', maxRetries: 0 });
  });
  afterAll(async () => {
    await router.close();
    await up.close();
  });
  beforeEach(() => {
    script.acquire = async () => granted(0);
    script.acquired.length = 0;
    script.released.length = 0;
    script.usage.length = 0;
    script.settled.length = 0;
    script.reserveModel = undefined;
  });

  it('asks admission with band, tenant, pools by priority and the token estimate, and reports the queue time', async () => {
    script.acquire = async () => granted(42, 'a100');
    const { response } = await client.chat.completions.create(MSG, { headers: { 'x-llmgw-band': 'silver', 'x-llmgw-tenant': 'team-7' } }).withResponse();
    expect(response.headers.get('x-llmgw-queue-ms')).toBe('42');
    // The granted pool is used first.
    expect(response.headers.get('x-llmgw-pool')).toBe('a100');
    const req = script.acquired[0];
    expect(req).toMatchObject({ band: 'silver', tenant: 'team-7', model: 'm', candidatePools: ['h100', 'a100'] });
    const bytes = Buffer.byteLength(JSON.stringify(MSG));
    expect(req.estimatedTokens).toBe(Math.ceil(bytes / 4) + 10);
    expect(req.deadlineMs).toBeGreaterThan(Date.now());
    expect(script.released).toEqual([{ status: 200, promptTokens: 11, completionTokens: 3 }]);
  });

  it('uses the default band and tenant', async () => {
    await client.chat.completions.create(MSG);
    expect(script.acquired[0]).toMatchObject({ band: 'gold', tenant: 'default' });
  });

  it.each([
    ['full', 503, 'queue_full', '3'],
    ['displaced', 503, 'queue_displaced', '3'],
    ['ttl', 504, 'queue_timeout', null],
  ] as const)('maps a %s rejection to %i %s', async (reason, status, code, retryAfter) => {
    script.acquire = async () => ({
      kind: 'rejected',
      reason,
      queuedMs: 5,
      message: `rejected: ${reason}`,
      retryAfterSeconds: reason === 'ttl' ? undefined : 3,
    });
    const hits = up.hits.length;
    const err = await client.chat.completions.create(MSG).catch((e) => e);
    expect(err.status).toBe(status);
    expect(err.code).toBe(code);
    expect(err.headers.get('retry-after')).toBe(retryAfter);
    expect(up.hits.length).toBe(hits);
    expect(script.usage[0]).toMatchObject({ status, keyId: 'anonymous' });
  });

  it('aborts the admission wait when the client goes away', async () => {
    let sawAbort = false;
    script.acquire = (_req, signal) =>
      new Promise((resolve) => {
        signal?.addEventListener('abort', () => {
          sawAbort = true;
          resolve({ kind: 'rejected', reason: 'client_gone', queuedMs: 1, message: 'gone' });
        });
      });
    const ac = new AbortController();
    const p = client.chat.completions.create(MSG, { signal: ac.signal }).catch((e) => e);
    await waitUntil(() => script.acquired.length === 1, 'script.acquired.length === 1', { everyMs: 25 });
    ac.abort();
    await p;
    await waitUntil(() => sawAbort && script.usage.length === 1, 'sawAbort && script.usage.length === 1', { everyMs: 25 });
    expect(script.usage[0].status).toBe(499);
  });

  it('releases the lease and settles once even when the upstream fails', async () => {
    const h = up.handler;
    up.handler = (_req, res) => {
      res.writeHead(500);
      res.end('boom');
    };
    try {
      await expect(client.chat.completions.create({ ...MSG, model: 'cheap' })).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    } finally {
      up.handler = h;
    }
    expect(script.released).toEqual([{ status: 502, promptTokens: undefined, completionTokens: undefined }]);
    expect(script.settled).toEqual([{ id: 'r0', usage: undefined }]);
  });

  it('records usage for every completed request, and serves a budget-fallback model', async () => {
    script.reserveModel = 'cheap';
    const { response } = await client.chat.completions.create(MSG, { headers: { 'x-request-id': 'usage-1' } }).withResponse();
    expect(response.headers.get('x-llmgw-served-model')).toBe('cheap');
    expect(script.settled).toEqual([{ id: 'r0', usage: { promptTokens: 11, completionTokens: 3, model: 'cheap' } }]);
    expect(script.usage).toHaveLength(1);
    expect(script.usage[0]).toMatchObject({
      requestId: 'usage-1',
      keyId: 'anonymous',
      model: 'cheap',
      servedModel: 'cheap',
      pool: 'default',
      status: 200,
      promptTokens: 11,
      completionTokens: 3,
      cachedTokens: 0,
      queueMs: 0,
    });
    expect(script.usage[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(script.usage[0].ttftMs).toBeGreaterThanOrEqual(0);
  });
});
