import { LlmgwError } from '@llmgw/errors';
import type { Principal } from '@llmgw/contracts';
import { start, type RunningRouter } from '../src/main';
import { fakeUpstream, silentLog, type FakeUpstream } from './helpers';

// With auth on, /v1/models is an API call like the others: it needs a key, and
// a key sees only the models its allowlist lets it use.
const principal: Principal = {
  keyId: 'k',
  keyPrefix: 'sk-llmgw-good',
  projectId: 'p',
  teamId: 't',
  orgId: 'o',
  band: 'gold',
  limits: { rpm: [], tpm: [], budgets: [], allowedModels: ['m'] },
};
jest.mock('../src/tenancy', () => ({
  createTenancy: () => ({
    enabled: true,
    authenticate: async (h: string | undefined) => {
      if (!h) throw new LlmgwError('LLMGW_ERR_AUTH_MISSING', 'no API key');
      if (h !== 'Bearer good') throw new LlmgwError('LLMGW_ERR_AUTH_INVALID', 'bad API key');
      return principal;
    },
    reserve: async (_p: unknown, model: string) => ({ id: 'r', model }),
    settle: () => undefined,
    recordUsage: () => undefined,
    close: async () => undefined,
  }),
}));

describe('/v1/models with auth on', () => {
  let up: FakeUpstream;
  let router: RunningRouter;
  beforeAll(async () => {
    up = await fakeUpstream();
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        models: [{ name: 'm', aliases: ['mm'] }, { name: 'other' }],
        endpoints: [
          { name: 'a', url: up.url, model: 'm' },
          { name: 'b', url: up.url, model: 'other' },
        ],
      },
    });
  });
  afterAll(async () => {
    await router.close();
    await up.close();
  });

  const get = (path: string, key?: string) => fetch(`${router.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

  it.each([
    ['/v1/models', undefined, 'missing_api_key'],
    ['/v1/models', 'nope', 'invalid_api_key'],
    ['/v1/models/m', undefined, 'missing_api_key'],
  ])('%s with key %p answers 401 %s', async (path, key, code) => {
    const r = await get(path, key);
    expect(r.status).toBe(401);
    expect(((await r.json()) as any).error.code).toBe(code);
  });

  it('lists only the models (and aliases) the key may use', async () => {
    const r = await get('/v1/models', 'good');
    expect(r.status).toBe(200);
    expect(((await r.json()) as any).data.map((d: { id: string }) => d.id).sort()).toEqual(['m', 'mm']);
  });

  it.each([
    ['m', 200],
    ['mm', 200],
    ['other', 404],
  ])('GET /v1/models/%s → %d', async (id, status) => {
    expect((await get(`/v1/models/${id}`, 'good')).status).toBe(status);
  });
});
