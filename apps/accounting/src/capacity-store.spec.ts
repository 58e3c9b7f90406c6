import { createDb, type Db } from '@llmgw/db';
import { CapacityStore, toWire } from './capacity-store';

const profile = (over: object = {}) => ({
  model: 'm',
  profile: 'p',
  gpuClass: 'h100-80g',
  maxConcurrencyAtSlo: 8,
  throughputTokPerSec: 80,
  ttftP99Ms: 100,
  tpotP99Ms: 20,
  sloTtftP99Ms: 2000,
  sloTpotP99Ms: 50,
  relativeCost: 2.5,
  engine: 'sim',
  engineVersion: '0.1.0',
  engineArgs: ['--decode-tps', '5'],
  promptTokens: 16,
  outputTokens: 10,
  engineWaitingAtSlo: 0,
  kvUsageAtSlo: 0.1,
  measuredAtMs: '1700000000000',
  replica: 'r1',
  savedBy: '',
  resultJson: '{"x":1}',
  ...over,
});

describe('CapacityStore (embedded Postgres)', () => {
  let db: Db;
  let store: CapacityStore;
  beforeAll(async () => {
    db = await createDb('pglite:memory');
    store = new CapacityStore(db.db, () => 42);
  });
  afterAll(() => db.close());

  it('saves (replacing), lists, gets and deletes; saves and deletes are in the audit log', async () => {
    await store.save('alice', profile() as never);
    await store.save('bob', profile({ maxConcurrencyAtSlo: 9 }) as never);
    await store.save('bob', profile({ profile: 'q', gpuClass: 'a100-80g' }) as never);
    expect((await store.list()).map((r) => [r.profile, r.max_concurrency_at_slo, r.saved_by])).toEqual([
      ['p', 9, 'bob'],
      ['q', 8, 'bob'],
    ]);
    expect(await store.list('other')).toEqual([]);
    const wire = toWire(await store.get('m', 'p'));
    expect(wire).toMatchObject({
      model: 'm',
      profile: 'p',
      maxConcurrencyAtSlo: 9,
      relativeCost: 2.5,
      engineArgs: ['--decode-tps', '5'],
      measuredAtMs: 1700000000000,
      savedBy: 'bob',
    });
    await store.delete('carol', 'm', 'q');
    await expect(store.get('m', 'q')).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
    await expect(store.delete('carol', 'm', 'q')).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
    const audit = await db.db.selectFrom('audit_log').select(['actor', 'action', 'target_id']).orderBy('id').execute();
    expect(audit).toEqual([
      { actor: 'alice', action: 'capacity.save', target_id: 'm/p' },
      { actor: 'bob', action: 'capacity.save', target_id: 'm/p' },
      { actor: 'bob', action: 'capacity.save', target_id: 'm/q' },
      { actor: 'carol', action: 'capacity.delete', target_id: 'm/q' },
    ]);
  });

  it('refuses bad names and numbers with INVALID_ARGUMENT, naming the field', async () => {
    await expect(store.save('a', profile({ model: '' }) as never)).rejects.toMatchObject({
      code: 'LLMGW_ERR_INVALID_ARGUMENT',
      message: expect.stringMatching(/^model must be/),
    });
    await expect(store.save('a', profile({ profile: 'bad name' }) as never)).rejects.toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT' });
    await expect(store.save('a', profile({ ttftP99Ms: -1 }) as never)).rejects.toMatchObject({ message: expect.stringMatching(/^ttft_p99_ms must be/) });
    await expect(store.save('a', profile({ resultJson: 'x'.repeat(256 * 1024 + 1) }) as never)).rejects.toMatchObject({
      message: 'result_json is at most 256 KiB',
    });
  });
});
