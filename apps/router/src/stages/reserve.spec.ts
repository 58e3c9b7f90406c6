import { parseConfig, routerConfigSchema } from '@llmgw/config';
import type { Principal } from '@llmgw/contracts';
import { createLogger, createRegistry } from '@llmgw/observability';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger } from '@llmgw/stores';
import type { RouterCore } from '../router';
import { createEnabledTenancy } from '../tenancy/enabled';
import { reserveQuota } from './reserve';
import { contextOf, stageRouter } from './testing';

const tenancyCfg = { enabled: true, prices: { big: { prompt_per_mtok: 1000, completion_per_mtok: 1000 }, small: { prompt_per_mtok: 0, completion_per_mtok: 0 } }, budget_fallback_model: 'small' };
const principal = (limits: Partial<Principal['limits']>): Principal => ({ keyId: 'k', keyPrefix: 'sk-llmgw-x', projectId: 'p', teamId: 't', orgId: 'o', band: 'gold', limits: { rpm: [], tpm: [], budgets: [], ...limits } });

describe('stage: reserve quota', () => {
  let core: RouterCore;
  beforeAll(async () => {
    const cfg = parseConfig(routerConfigSchema, { tenancy: tenancyCfg });
    const tenancy = createEnabledTenancy(cfg, { log: createLogger({ service: 'router', level: 'silent' }), registry: createRegistry('router') }, {
      stores: { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() },
      resolve: async () => principal({}),
    });
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

  const ctx = (p: Principal, model: string, estimatedTokens = 10) => {
    const c = contextOf('chat');
    c.principal = p;
    c.model = model;
    c.estimatedTokens = estimatedTokens;
    return c;
  };

  it('reserves for the model and builds its fallback chain', async () => {
    const c = ctx(principal({}), 'big');
    await reserveQuota(core.state, c);
    expect(c.reservation?.model).toBe('big');
    expect(c.chain).toEqual(['big', 'x']);
  });

  it('moves to the budget fallback model and builds the chain from it, within the allowlist', async () => {
    const c = ctx(principal({ budgets: [{ scope: 'key:k', limitMicros: 5, period: 'day' }], allowedModels: ['big', 'small', 'z'] }), 'big');
    await reserveQuota(core.state, c);
    expect(c.model).toBe('small');
    expect(c.chain).toEqual(['small', 'z']);
  });

  it.each([
    [{ allowedModels: ['x'] }, 'LLMGW_ERR_MODEL_NOT_ALLOWED'],
    [{ rpm: [{ scope: 'key:rpm0', limit: 0 }] }, 'LLMGW_ERR_RATE_LIMIT_RPM'],
    [{ tpm: [{ scope: 'key:tpm5', limit: 5 }] }, 'LLMGW_ERR_RATE_LIMIT_TPM'],
  ])('refuses a key with %j', async (limits, code) => {
    await expect(reserveQuota(core.state, ctx(principal(limits), 'big'))).rejects.toMatchObject({ code });
  });
});
