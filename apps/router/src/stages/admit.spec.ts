import type { RouterCore } from '../router';
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
    for (let i = 0; i < core.state.cfg.breaker.failure_threshold; i++) core.health.failure('b1');
  });
  afterAll(() => core.close());

  const ctx = (chain: string[]) => {
    const c = contextOf('chat');
    c.model = chain[0];
    c.chain = chain;
    c.band = core.state.cfg.default_band;
    return c;
  };

  it('serves the first model in the chain with a usable endpoint and takes a lease', async () => {
    const c = ctx(['empty', 'broken', 'm']);
    await admit(core.state, c);
    expect(c.servedModel).toBe('m');
    expect(c.chainIdx).toBe(2);
    expect(c.lease).toBeDefined();
    // Admission off: the lease names the highest-priority candidate pool.
    expect(c.lease?.pool).toBe('p-high');
    c.lease?.release({ status: 200 });
  });

  it('refuses with 503 no_endpoint and Retry-After when nothing in the chain can serve', async () => {
    await expect(admit(core.state, ctx(['empty', 'broken']))).rejects.toMatchObject({ code: 'LLMGW_ERR_NO_ENDPOINT', retryAfterSeconds: expect.any(Number) });
  });
});
