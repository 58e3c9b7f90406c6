import type { Principal } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger, type AccountingStores, type LedgerRecord } from '@llmgw/stores';
import { hashApiKey } from '@llmgw/tenancy';

/**
 * The real enabled tenancy with only the key resolver replaced: keys come
 * from `testKeys` (hash → principal). A spec installs it with
 *   jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());
 * and may set `testTenancy.stores` (in-process stores to inspect) before the router starts;
 * without them the stores config describes are used (e.g. Redis).
 */
export const testKeys = new Map<string, Principal>();
export const testTenancy: { stores?: AccountingStores } = {};

/** Registers a key with these limits; returns its bearer token. */
export function keyWith(limits: Partial<Principal['limits']>, tag = 'k'): string {
  const n = testKeys.size;
  const key = `sk-llmgw-test-${tag}-${n}`;
  testKeys.set(hashApiKey(key), {
    keyId: `${tag}-${n}`,
    keyPrefix: 'sk-llmgw-test',
    projectId: `p-${tag}-${n}`,
    teamId: 't',
    orgId: 'o',
    band: 'gold',
    limits: { rpm: [], tpm: [], budgets: [], ...limits },
  });
  return key;
}

export function tenancyModule() {
  const actual = jest.requireActual('../src/tenancy');
  const { createEnabledTenancy } = jest.requireActual('../src/tenancy/enabled');
  return {
    ...actual,
    createTenancy: (cfg: never, deps: never) =>
      createEnabledTenancy(cfg, deps, {
        stores: testTenancy.stores,
        resolve: async (h: string) => {
          const p = testKeys.get(h);
          if (!p) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', 'no such key');
          return p;
        },
      }),
  };
}

/** An in-process ledger that also keeps every record appended, in order. */
export class RecordingLedger extends MemoryUsageLedger {
  readonly records: LedgerRecord[] = [];
  override async append(rec: LedgerRecord): Promise<string> {
    this.records.push(rec);
    return super.append(rec);
  }
}

/** Installs in-process stores with a RecordingLedger (before the router starts); returns the ledger. */
export function recordUsage(): RecordingLedger {
  const ledger = new RecordingLedger();
  testTenancy.stores = { counters: new MemoryLimitCounters(), ledger, keyCacheBus: new MemoryKeyCacheBus() };
  return ledger;
}
