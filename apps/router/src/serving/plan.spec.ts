import type { AcquireResult, AdmissionRequest, LeaseOutcome } from '@llmgw/admission-core';
import { parseConfig, routerConfigSchema } from '@llmgw/config';
import type { Principal, UsageRecord } from '@llmgw/contracts';
import { createLogger, createRegistry } from '@llmgw/observability';
import type { EndpointView } from '@llmgw/scheduling';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger } from '@llmgw/stores';
import { periodBounds } from '@llmgw/tenancy';
import { waitUntil } from '@llmgw/testing';
import { createEnabledTenancy } from '../tenancy/enabled';
import { ServingPlan, type PlanDeps } from './plan';

// The serving plan with the real enabled tenancy on in-process counters, a recording admission
// (one pool per model: `pool-<model>`) and endpoint views scripted per model.
const PRICES = {
  big: { prompt_per_mtok: 1000, completion_per_mtok: 1000 },
  mid: { prompt_per_mtok: 5, completion_per_mtok: 5 },
  paid: { prompt_per_mtok: 1000, completion_per_mtok: 1000 },
  small: { prompt_per_mtok: 0, completion_per_mtok: 0 },
  free: { prompt_per_mtok: 0, completion_per_mtok: 0 },
};
const FALLBACKS: Record<string, string[]> = { a: ['b', 'c'], free: ['paid'], big: ['mid'], small: ['mid'] };
const cfg = parseConfig(routerConfigSchema, { tenancy: { enabled: true, prices: PRICES, budget_fallback_model: 'small' } });

let keys = 0;
const principal = (limits: Partial<Principal['limits']>): Principal => {
  const keyId = `k${++keys}`;
  return { keyId, keyPrefix: 'sk-llmgw-x', projectId: 'p', teamId: 't', orgId: 'o', band: 'gold', limits: { rpm: [], tpm: [], budgets: [], ...limits } };
};
const dayBudget = (scope: string, limitMicros: number) => [{ scope, limitMicros, period: 'day' as const }];
const spent = (counters: MemoryLimitCounters, scope: string) => counters.budgetSpent(scope, periodBounds('day', Date.now()).start);

/** What admission was asked and what it released. */
interface AdmissionLog {
  acquired: Array<{ model: string; pools: string[] }>;
  released: Array<{ pool: string; outcome?: LeaseOutcome }>;
}

function recordingAdmission(log: AdmissionLog) {
  let n = 0;
  return {
    async acquire(req: AdmissionRequest): Promise<AcquireResult> {
      log.acquired.push({ model: req.model, pools: req.candidatePools });
      const pool = req.candidatePools[0];
      return { kind: 'granted', pool, queuedMs: 2, lease: { id: `l${++n}`, pool, release: (outcome) => log.released.push({ pool, outcome }) } };
    },
  };
}

const view = (model: string, i = 1): EndpointView => ({
  id: `${model}-${i}`,
  url: 'http://127.0.0.1:9',
  model,
  pool: `pool-${model}`,
  poolPriority: 0,
  engine: 'vllm',
  weight: 100,
  draining: false,
  stale: false,
  available: true,
  inflight: 0,
});

describe('serving plan', () => {
  const counters = new MemoryLimitCounters();
  const ledger = new MemoryUsageLedger();
  const tenancy = createEnabledTenancy(
    cfg,
    { log: createLogger({ service: 'router', level: 'silent' }), registry: createRegistry('router') },
    {
      stores: { counters, ledger, keyCacheBus: new MemoryKeyCacheBus() },
      resolve: async () => {
        throw new Error('keys are not resolved here');
      },
    },
  );
  afterAll(() => tenancy.close());

  /** A plan over endpoints of the `serving` models; admission records into the returned log. */
  function planFor(p: Principal, model: string, serving: string[], estimatedTokens = 100) {
    const log: AdmissionLog = { acquired: [], released: [] };
    const deps: PlanDeps = {
      cfg: { cooldown_seconds: 5, admission: { queue_ttl: 1000 } },
      tenancy,
      admission: recordingAdmission(log),
      catalog: { chain: (m) => [m, ...(FALLBACKS[m] ?? [])] },
      views: (m) => (serving.includes(m) ? [view(m)] : []),
    };
    const plan = new ServingPlan(deps, {
      id: 'req-1',
      model,
      principal: p,
      band: 'gold',
      tenant: 'p',
      estimatedTokens,
      client: { signal: new AbortController().signal },
    });
    return { plan, log };
  }
  const rec = (p: Principal, plan: ServingPlan, promptTokens: number, completionTokens: number): UsageRecord => ({
    requestId: 'req-1',
    ts: Date.now(),
    keyId: p.keyId,
    projectId: p.projectId,
    model: plan.model,
    servedModel: plan.served!,
    status: 200,
    promptTokens,
    completionTokens,
    cachedTokens: 0,
    durationMs: 1,
  });

  describe('allowlist on a fallback model', () => {
    it('leaves fallbacks off the allowlist out of the chain and never admits them', async () => {
      const p = principal({ allowedModels: ['a'] });
      const { plan, log } = planFor(p, 'a', ['b', 'c']);
      await plan.reserve();
      expect(plan.chain).toEqual(['a']);
      await expect(plan.admit()).rejects.toMatchObject({ code: 'LLMGW_ERR_NO_ENDPOINT' });
      expect(plan.served).toBeUndefined();
      expect(log.acquired).toEqual([]);
    });

    it('skips a fallback off the allowlist when moving down the chain', async () => {
      const p = principal({ allowedModels: ['a', 'c'] });
      const { plan } = planFor(p, 'a', ['a', 'b', 'c']);
      await plan.reserve();
      await plan.admit();
      expect(plan.served).toBe('a');
      const step = await plan.advance(new Set(['a-1']));
      expect(step.moved).toBe(true);
      expect(plan.served).toBe('c');
      expect(plan.reservation?.model).toBe('c');
    });
  });

  describe('fallback charging', () => {
    it('charges a paid fallback of a free model to the budget at the paid price', async () => {
      const scope = 'key:charge-paid';
      const p = principal({ budgets: dayBudget(scope, 1_000_000_000) });
      const { plan } = planFor(p, 'free', ['paid']);
      await plan.reserve();
      await plan.admit();
      expect(plan.served).toBe('paid');
      plan.finish({ status: 200 }, { promptTokens: 3, completionTokens: 1 }, rec(p, plan, 3, 1));
      // 3 × 1000 + 1 × 1000 micro-units: the paid model's price, not the free one's.
      await waitUntil(async () => (await spent(counters, scope)) === 4000, 'the paid fallback charged at its price');
    });

    it('charges what the model served costs, not what the requested one would have', async () => {
      const scope = 'key:charge-mid';
      const p = principal({ budgets: dayBudget(scope, 1_000_000_000) });
      const { plan } = planFor(p, 'big', ['big', 'mid']);
      await plan.reserve();
      await plan.admit();
      expect(plan.served).toBe('big');
      await plan.advance(new Set(['big-1']));
      expect(plan.served).toBe('mid');
      plan.finish({ status: 200 }, { promptTokens: 30, completionTokens: 10 }, rec(p, plan, 30, 10));
      await waitUntil(async () => (await spent(counters, scope)) === 200, 'usage charged at the served model price (5 × 40)');
    });

    it('refuses a paid fallback when the budget cannot pay for it, and settles nothing', async () => {
      const scope = 'key:charge-none';
      const p = principal({ budgets: dayBudget(scope, 10) });
      const { plan, log } = planFor(p, 'free', ['paid']);
      await plan.reserve();
      await expect(plan.admit()).rejects.toMatchObject({ code: 'LLMGW_ERR_BUDGET_EXCEEDED' });
      expect(log.acquired).toEqual([]);
      plan.finish({ status: 429 }, undefined, rec(p, plan, 0, 0));
      expect(await spent(counters, scope)).toBe(0);
    });
  });

  it('a budget fallback then an availability fallback: charged at the served price and admitted against its pool', async () => {
    const scope = 'key:budget-then-availability';
    // `big` would need 100 tokens × 1000 = 100000 micro-units of a 1000 budget: the budget fallback
    // `small` (free) is reserved instead; its endpoint fails, and its fallback `mid` (5 per MTok) fits.
    const p = principal({ budgets: dayBudget(scope, 1000) });
    const { plan, log } = planFor(p, 'big', ['big', 'small', 'mid']);
    await plan.reserve();
    expect(plan.model).toBe('small');
    expect(plan.chain).toEqual(['small', 'mid']);
    await plan.admit();
    expect(plan.served).toBe('small');
    expect(plan.lease?.pool).toBe('pool-small');

    const step = await plan.advance(new Set(['small-1']));
    expect(step).toEqual({ moved: true });
    expect(plan.served).toBe('mid');
    expect(plan.reservation?.model).toBe('mid');
    // The lease moved: released on small's pool, taken again on mid's for mid.
    expect(plan.lease?.pool).toBe('pool-mid');
    expect(log.acquired).toEqual([
      { model: 'small', pools: ['pool-small'] },
      { model: 'mid', pools: ['pool-mid'] },
    ]);
    expect(log.released).toEqual([{ pool: 'pool-small', outcome: undefined }]);
    expect(plan.queueMs).toBe(4);

    plan.finish({ status: 200, promptTokens: 30, completionTokens: 10 }, { promptTokens: 30, completionTokens: 10 }, rec(p, plan, 30, 10));
    expect(log.released).toEqual([
      { pool: 'pool-small', outcome: undefined },
      { pool: 'pool-mid', outcome: { status: 200, promptTokens: 30, completionTokens: 10 } },
    ]);
    await waitUntil(async () => (await spent(counters, scope)) === 200, "usage charged to the key's budget at mid's price");
  });

  it('moves the lease to the pool of an endpoint picked outside it, and only then', async () => {
    const p = principal({});
    const { plan, log } = planFor(p, 'a', ['a']);
    await plan.reserve();
    await plan.admit();
    await plan.follow('pool-a');
    expect(log.acquired).toHaveLength(1);
    await plan.follow('pool-other');
    expect(plan.lease?.pool).toBe('pool-other');
    expect(log.acquired[1]).toEqual({ model: 'a', pools: ['pool-other'] });
    expect(log.released).toEqual([{ pool: 'pool-a', outcome: undefined }]);
  });

  it('answers 503 no_endpoint with Retry-After when nothing in the chain can serve', async () => {
    const { plan } = planFor(principal({}), 'a', []);
    await plan.reserve();
    await expect(plan.admit()).rejects.toMatchObject({
      code: 'LLMGW_ERR_NO_ENDPOINT',
      retryAfterSeconds: 5,
      message: expect.stringContaining('or its fallbacks (b, c)'),
    });
  });

  describe('a grant at once', () => {
    it('is taken without the abort signal or acquire; a request that must ask gets the signal', async () => {
      const p = principal({});
      const log: AdmissionLog = { acquired: [], released: [] };
      let credits = 1;
      let signalsRead = 0;
      const recording = recordingAdmission(log);
      const deps: PlanDeps = {
        cfg: { cooldown_seconds: 5, admission: { queue_ttl: 1000 } },
        tenancy,
        admission: {
          acquire: recording.acquire,
          grantNow: (req) =>
            credits-- > 0
              ? { kind: 'granted', pool: req.candidatePools[0], queuedMs: 0, lease: { id: 'credit', pool: req.candidatePools[0], release: () => undefined } }
              : undefined,
        },
        catalog: { chain: (m) => [m] },
        views: (m) => [view(m)],
      };
      const request = (id: string) => ({
        id,
        model: 'a',
        principal: p,
        band: 'gold',
        tenant: 'p',
        estimatedTokens: 10,
        client: {
          get signal() {
            signalsRead++;
            return new AbortController().signal;
          },
        },
      });
      const first = new ServingPlan(deps, request('req-credit'));
      await first.reserve();
      await first.admit();
      expect(first.lease?.id).toBe('credit');
      expect(signalsRead).toBe(0);
      expect(log.acquired).toEqual([]);
      const second = new ServingPlan(deps, request('req-asks'));
      await second.reserve();
      await second.admit();
      expect(second.lease?.id).toBe('l1');
      expect(signalsRead).toBe(1);
      expect(log.acquired).toEqual([{ model: 'a', pools: ['pool-a'] }]);
    });
  });
});
