import type { RouterCore } from '../router';
import { ServingPlan } from '../serving/plan';
import { admit } from './admit';
import { contextOf, stageRouter } from './testing';

describe('stage: admit', () => {
  let core: RouterCore;
  beforeAll(async () => {
    core = await stageRouter({
      // `empty` is configured but nothing serves it; `broken`'s only endpoint gets its breaker opened below.
      models: [{ name: 'empty' }, { name: 'broken' }, { name: 'm' }],
      endpoints: [
        { name: 'b1', url: 'http://127.0.0.1:9', model: 'broken' },
        { name: 'm1', url: 'http://127.0.0.1:9', model: 'm', pool: 'p-low', priority: 0 },
        { name: 'm2', url: 'http://127.0.0.1:9', model: 'm', pool: 'p-high', priority: 5 },
      ],
    });
    for (let i = 0; i < 100 && core.health.available('b1'); i++) core.health.failure('b1');
    expect(core.health.available('b1')).toBe(false);
  });
  afterAll(() => core.close());

  /** A request for `chain[0]` whose reservation built this chain (reserve's part of the plan). */
  const ctx = (chain: string[]) => {
    const c = contextOf('chat');
    const catalog = { chain: () => chain };
    c.plan = new ServingPlan(
      { ...core.state, catalog },
      { id: c.reqId, model: chain[0], band: core.state.cfg.default_band, tenant: 'default', estimatedTokens: 1, client: c },
    );
    return c;
  };

  it('serves the first model in the chain with a usable endpoint and takes a lease', async () => {
    const c = ctx(['empty', 'broken', 'm']);
    await c.plan!.reserve();
    await admit(c);
    expect(c.servedModel).toBe('m');
    expect(c.plan?.position).toBe(2);
    expect(c.lease).toBeDefined();
    // Admission off: the lease names the highest-priority candidate pool.
    expect(c.lease?.pool).toBe('p-high');
    c.lease?.release({ status: 200 });
  });

  it('refuses with 503 no_endpoint and Retry-After when nothing in the chain can serve', async () => {
    const c = ctx(['empty', 'broken']);
    await c.plan!.reserve();
    await expect(admit(c)).rejects.toMatchObject({ code: 'LLMGW_ERR_NO_ENDPOINT', retryAfterSeconds: expect.any(Number) });
  });
});
