import { parseConfig, routerConfigSchema } from '@llmgw/config';
import type { Principal } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { createLogger, createRegistry } from '@llmgw/observability';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger } from '@llmgw/stores';
import { hashApiKey } from '@llmgw/tenancy';
import type { RouterCore } from '../router';
import { createEnabledTenancy } from '../tenancy/enabled';
import { authenticate } from './authenticate';
import { contextOf, stageRouter } from './testing';

const principal: Principal = {
  keyId: 'k1',
  keyPrefix: 'sk-llmgw-good',
  projectId: 'p1',
  teamId: 't1',
  orgId: 'o1',
  band: 'gold',
  limits: { rpm: [], tpm: [], budgets: [] },
};

describe('stage: authenticate', () => {
  let on: RouterCore;
  let off: RouterCore;
  beforeAll(async () => {
    const cfg = parseConfig(routerConfigSchema, { tenancy: { enabled: true } });
    const tenancy = createEnabledTenancy(
      cfg,
      { log: createLogger({ service: 'router', level: 'silent' }), registry: createRegistry('router') },
      {
        stores: { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() },
        resolve: async (h) => {
          if (h !== hashApiKey('sk-llmgw-good')) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', 'no');
          return principal;
        },
      },
    );
    const endpoints = [{ name: 'a', url: 'http://127.0.0.1:9', model: 'm' }];
    on = await stageRouter({ endpoints }, tenancy);
    off = await stageRouter({ endpoints });
  });
  afterAll(async () => {
    await on.close();
    await off.close();
  });

  it('sets the principal of a known key', async () => {
    const c = contextOf('chat', { authorization: 'Bearer sk-llmgw-good' });
    await authenticate(on.state, c);
    expect(c.principal?.keyId).toBe('k1');
  });

  it.each([
    [{}, 'LLMGW_ERR_AUTH_MISSING'],
    [{ authorization: 'Basic abc' }, 'LLMGW_ERR_AUTH_MISSING'],
    [{ authorization: 'Bearer sk-llmgw-nope' }, 'LLMGW_ERR_AUTH_INVALID'],
  ])('refuses %j with %s', async (headers, code) => {
    await expect(authenticate(on.state, contextOf('chat', headers))).rejects.toMatchObject({ code });
  });

  it('leaves the principal unset with tenancy off', async () => {
    const c = contextOf('chat', { authorization: 'Bearer whatever' });
    await authenticate(off.state, c);
    expect(c.principal).toBeUndefined();
  });
});
