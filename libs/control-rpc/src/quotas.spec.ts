import { makeModel, Sharing, type QuotaRule } from '@llmgw/placement';
import { QuotaAdmin, type QuotaAdminScheduler } from './quotas';

/** The scheduler side as PlacementScheduler does it: overrides on the reconciler's Sharing, usage from the running replicas. */
function scheduler(): QuotaAdminScheduler & { sharing: Sharing; stored: QuotaRule[] } {
  const catalog = [makeModel('m', [{ tp: 2 }], {}, { project: 'search' })];
  const sharing = new Sharing(
    { projects: [{ name: 'search', org: 'acme' }], quotas: [{ scope: 'org', name: 'acme', guaranteeGpus: 4, limitGpus: 8 }] },
    60_000,
  );
  const running = [
    {
      id: 'r1',
      model: 'm',
      project: 'search',
      capacityClass: 'standard' as const,
      createdAtMs: 1,
      gpuClass: 'h100-80g',
      shards: [{ nodeId: 'n', gpuIndices: [0, 1] }],
    },
  ];
  const s = {
    sharing,
    stored: [] as QuotaRule[],
    quotas: () => sharing.usage(catalog, running),
    async setQuota(id: Pick<QuotaRule, 'scope' | 'name' | 'capacityClass'>, rule: QuotaRule | undefined) {
      const cur = sharing.overrideList().find((r) => r.scope === id.scope && r.name === id.name && r.capacityClass === id.capacityClass);
      if (JSON.stringify(cur) === JSON.stringify(rule)) return false;
      sharing.setOverride(id, rule);
      s.stored = sharing.overrideList();
      return true;
    },
  };
  return s;
}

const set = (over: object = {}) => ({
  scope: 'org' as const,
  name: 'acme',
  capacityClass: '' as const,
  guaranteeGpus: 2,
  limitGpus: 6,
  hasLimit: true,
  clear: false,
  ...over,
});

describe('QuotaAdmin (ctl quota show|set)', () => {
  it('shows the catalog quota with its usage, overrides it, says when nothing changed, and clears back to the catalog', async () => {
    const s = scheduler();
    const admin = new QuotaAdmin(s);
    expect(admin.list().quotas).toEqual([
      { scope: 'org', name: 'acme', capacityClass: '', guaranteeGpus: 4, limitGpus: 8, hasLimit: true, usedGpus: 2, overridden: false },
    ]);
    const r = await admin.set(set());
    expect(r).toEqual({
      quota: { scope: 'org', name: 'acme', capacityClass: '', guaranteeGpus: 2, limitGpus: 6, hasLimit: true, usedGpus: 2, overridden: true },
      changed: true,
    });
    expect((await admin.set(set())).changed).toBe(false);
    // The policy placement uses sees the override.
    expect(s.sharing.quotas()).toEqual([{ scope: 'org', name: 'acme', guaranteeGpus: 2, limitGpus: 6 }]);
    const cleared = await admin.set(set({ clear: true }));
    expect(cleared.quota).toMatchObject({ guaranteeGpus: 4, limitGpus: 8, overridden: false });
    expect(s.stored).toEqual([]);
  });

  it('a new quota of another scope and class is added; a limit below the guarantee is refused', async () => {
    const admin = new QuotaAdmin(scheduler());
    await admin.set(set({ scope: 'project', name: 'search', capacityClass: 'critical', guaranteeGpus: 1, hasLimit: false, limitGpus: 0 }));
    expect((admin.list().quotas ?? []).map((q) => [q.scope, q.name, q.capacityClass, q.hasLimit, q.usedGpus])).toEqual([
      ['org', 'acme', '', true, 2],
      ['project', 'search', 'critical', false, 0],
    ]);
    await expect(admin.set(set({ guaranteeGpus: 9, limitGpus: 3 }))).rejects.toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT' });
  });
});
