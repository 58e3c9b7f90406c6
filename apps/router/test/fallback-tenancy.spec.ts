import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger, type AccountingStores } from '@llmgw/stores';
import { periodBounds } from '@llmgw/tenancy';
import { start, type RunningRouter } from '../src/main';
import { fakeUpstream, silentLog, type FakeUpstream } from './helpers';
import { keyWith, testTenancy } from './tenancy-with-keys';
import { waitUntil } from '@llmgw/testing';

// Availability fallbacks (docs/router.md, "Upstream attempts, retries, timeouts") under tenancy: a fallback is served only "if the key
// permits it" — on its allowlist, and charged to its budgets at its own price. The real
// tenancy implementation runs on in-process stores; only the key resolver is replaced.
// Each test uses its own key (the router caches what a key resolves to).
const mockStores: AccountingStores = { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() };
testTenancy.stores = mockStores;
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());

const PAID = { prompt_per_mtok: 1000, completion_per_mtok: 1000 };
const FREE = { prompt_per_mtok: 0, completion_per_mtok: 0 };
const DAY_BUDGET = 'key:k-fb-spent';

describe('fallbacks under tenancy', () => {
  let up: FakeUpstream;
  let router: RunningRouter;
  beforeAll(async () => {
    up = await fakeUpstream();
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 60_000,
        tenancy: { enabled: true, prices: { big: PAID, small: FREE, free: FREE, paid: PAID, other: PAID }, budget_fallback_model: 'small' },
        models: [
          { name: 'free', fallbacks: ['paid'] },
          { name: 'allowed', fallbacks: ['other'] },
          { name: 'big' },
          { name: 'small', fallbacks: ['paid'] },
          { name: 'paid' },
          { name: 'other' },
        ],
        endpoints: [
          // Port 9 (discard) refuses connections: these models' only endpoints are down.
          { name: 'free-1', url: 'http://127.0.0.1:9', model: 'free' },
          { name: 'allowed-1', url: 'http://127.0.0.1:9', model: 'allowed' },
          { name: 'small-1', url: 'http://127.0.0.1:9', model: 'small' },
          { name: 'big-1', url: up.url, model: 'big' },
          { name: 'paid-1', url: up.url, model: 'paid' },
          { name: 'other-1', url: up.url, model: 'other' },
        ],
      },
    });
  });
  afterAll(async () => {
    await router?.close();
    await up?.close();
  });
  beforeEach(() => {
    up.hits.length = 0;
  });

  const chat = (key: string, model: string) =>
    fetch(`${router.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
    });

  it("never serves a fallback outside the key's allowlist", async () => {
    const r = await chat(keyWith({ allowedModels: ['allowed'] }), 'allowed');
    const body = (await r.json()) as any;
    expect(up.hits.filter((h) => h.body?.model === 'other')).toHaveLength(0);
    expect(r.status).toBe(502);
    expect(body.error.code).toBe('upstream_connect_error');
  });

  it('serves a fallback the allowlist does name', async () => {
    const r = await chat(keyWith({ allowedModels: ['allowed', 'other'] }), 'allowed');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-llmgw-served-model')).toBe('other');
  });

  it("charges a paid fallback of a free model to the key's budget at the paid price", async () => {
    const budgets = [{ scope: 'key:k-fb-charge', limitMicros: 1_000_000_000, period: 'day' as const }];
    const r = await chat(keyWith({ budgets }), 'free');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-llmgw-served-model')).toBe('paid');
    // The fake engine reports 3 prompt + 1 completion tokens: 3×1000 + 1×1000 micro-units.
    const start = periodBounds('day', Date.now()).start;
    await waitUntil(
      async () => (await mockStores.counters.budgetSpent('key:k-fb-charge', start)) === 4000,
      "(await mockStores.counters.budgetSpent('key:k-fb-charge', start)) === 4000",
      { everyMs: 25 },
    );
  });

  it('refuses a paid availability fallback after a budget fallback when the budget is spent', async () => {
    const budgets = [{ scope: DAY_BUDGET, limitMicros: 10, period: 'day' as const }];
    const key = keyWith({ budgets });
    // `big` costs more than the whole budget: the budget fallback `small` (free) is chosen; its only
    // endpoint is down, and its fallback `paid` must not be served for nothing.
    const r = await chat(key, 'big');
    const body = (await r.json()) as any;
    expect(up.hits).toHaveLength(0);
    expect(r.status).toBe(429);
    expect(body.error.llmgw_code).toBe('LLMGW_ERR_BUDGET_EXCEEDED');
    expect(await mockStores.counters.budgetSpent(DAY_BUDGET, periodBounds('day', Date.now()).start)).toBe(0);
  });
});
