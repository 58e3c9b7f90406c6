import { parseConfig, routerConfigSchema } from '@llmgw/config';
import type { Principal } from '@llmgw/contracts';
import { createLogger, createRegistry } from '@llmgw/observability';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger } from '@llmgw/stores';
import type { RouterCore } from '../router';
import { createEnabledTenancy } from '../tenancy/enabled';
import { reserveQuota } from './reserve';
import { resolveModel } from './resolve-model';
import { contextOf, stageRouter } from './testing';

const tenancyCfg = {
  enabled: true,
  prices: { big: { prompt_per_mtok: 1000, completion_per_mtok: 1000 }, small: { prompt_per_mtok: 0, completion_per_mtok: 0 } },
  budget_fallback_model: 'small',
};
const principal = (limits: Partial<Principal['limits']>): Principal => ({
  keyId: 'k',
  keyPrefix: 'sk-llmgw-x',
  projectId: 'p',
  teamId: 't',
  orgId: 'o',
  band: 'gold',
  limits: { rpm: [], tpm: [], budgets: [], ...limits },
});

describe('stage: reserve quota', () => {
  let core: RouterCore;
  beforeAll(async () => {
    const cfg = parseConfig(routerConfigSchema, { tenancy: tenancyCfg });
    const tenancy = createEnabledTenancy(
      cfg,
      { log: createLogger({ service: 'router', level: 'silent' }), registry: createRegistry('router') },
      {
        stores: { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() },
        resolve: async () => principal({}),
      },
    );
    core = await stageRouter(
      {
        tenancy: tenancyCfg,
        models: [{ name: 'big', fallbacks: ['x'] }, { name: 'small', fallbacks: ['y', 'z'] }, { name: 'x' }, { name: 'y' }, { name: 'z' }],
        endpoints: ['big', 'small', 'x', 'y', 'z'].map((m) => ({ name: m, url: 'http://127.0.0.1:9', model: m })),
      },
      tenancy,
    );
  });
  afterAll(() => core.close());

  /** A request of key `p` for `model`, through resolve model (which makes its serving plan). */
  const ctx = (p: Principal, model: string) => {
    const c = contextOf('chat', {}, { model, messages: [{ role: 'user', content: 'x' }], max_tokens: 10 });
    c.principal = p;
    resolveModel(core.state, c);
    return c;
  };

  it('reserves for the model and builds its fallback chain', async () => {
    const c = ctx(principal({}), 'big');
    await reserveQuota(c);
    expect(c.reservation?.model).toBe('big');
    expect(c.plan?.chain).toEqual(['big', 'x']);
  });

  it('moves to the budget fallback model and builds the chain from it, within the allowlist', async () => {
    const c = ctx(principal({ budgets: [{ scope: 'key:k', limitMicros: 5, period: 'day' }], allowedModels: ['big', 'small', 'z'] }), 'big');
    await reserveQuota(c);
    expect(c.model).toBe('small');
    expect(c.plan?.chain).toEqual(['small', 'z']);
  });

  it.each([
    [{ allowedModels: ['x'] }, 'LLMGW_ERR_MODEL_NOT_ALLOWED'],
    [{ rpm: [{ scope: 'key:rpm0', limit: 0 }] }, 'LLMGW_ERR_RATE_LIMIT_RPM'],
    [{ tpm: [{ scope: 'key:tpm5', limit: 5 }] }, 'LLMGW_ERR_RATE_LIMIT_TPM'],
  ])('refuses a key with %j', async (limits, code) => {
    await expect(reserveQuota(ctx(principal(limits), 'big'))).rejects.toMatchObject({ code });
  });
});
