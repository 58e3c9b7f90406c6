import type { Principal } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { KeyCache } from './key-cache';
import { KeyResolution, type LookupResult, type ResolveResult } from './key-resolution';

const principal = (keyId = 'k1', over: Partial<Principal> = {}): Principal => ({
  keyId,
  keyPrefix: 'sk-llmgw-ab',
  projectId: 'p1',
  teamId: 't1',
  orgId: 'o1',
  band: 'gold',
  limits: { rpm: [], tpm: [], budgets: [] },
  ...over,
});

interface Call {
  hash: string;
  ok(p: Principal): void;
  fail(e: unknown): void;
}

/** A resolver whose calls the test answers one by one, a clock the test moves, and the published records. */
function harness(opts: { ttl?: number; records?: boolean } = {}) {
  let t = 1_000_000;
  const calls: Call[] = [];
  const records = new Map<string, Principal | null>();
  const lookups: LookupResult[] = [];
  const resolves: ResolveResult[] = [];
  let recordReads = 0;
  const cache = new KeyCache(opts.ttl ?? 10_000, 1_000);
  const r = new KeyResolution({
    cache,
    resolve: (hash) =>
      new Promise<Principal>((ok, fail) => {
        calls.push({ hash, ok, fail });
      }),
    published:
      opts.records === false
        ? undefined
        : async (hash) => {
            recordReads++;
            return records.get(hash);
          },
    now: () => t,
    retryMs: 1_000,
    maxRetryMs: 4_000,
    onLookup: (x) => lookups.push(x),
    onResolve: (x) => resolves.push(x),
  });
  const down = () => new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'accounting unreachable');
  const notFound = () => new LlmgwError('LLMGW_ERR_NOT_FOUND', 'no active key');
  /** Lets settled promises run their continuations. */
  const flush = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  /** Answers the oldest unanswered call. */
  const answer = async (how: Principal | 'down' | 'not_found') => {
    const c = calls.shift();
    if (!c) throw new Error('no resolve call is waiting');
    if (how === 'down') c.fail(down());
    else if (how === 'not_found') c.fail(notFound());
    else c.ok(how);
    await flush();
  };
  return {
    r,
    cache,
    calls,
    records,
    lookups,
    resolves,
    answer,
    flush,
    advance: (ms: number) => (t += ms),
    recordReads: () => recordReads,
  };
}

/** Resolves `key` once through accounting so the cache holds it. */
async function primed(h: ReturnType<typeof harness>, key = 'h1', p = principal()) {
  const first = h.r.lookup(key);
  await h.answer(p);
  expect(await first).toEqual(p);
}

describe('KeyResolution: stale-while-revalidate', () => {
  it('answers a fresh entry from the cache; a stale one at once, with one refresh in flight for any number of callers', async () => {
    const h = harness();
    await primed(h);
    expect(await h.r.lookup('h1')).toMatchObject({ keyId: 'k1' });
    expect(h.calls).toHaveLength(0);
    h.advance(10_000); // past cache_ttl
    const served = await Promise.all([h.r.lookup('h1'), h.r.lookup('h1'), h.r.lookup('h1')]);
    expect(served.map((p) => p?.keyId)).toEqual(['k1', 'k1', 'k1']);
    expect(h.calls).toHaveLength(1); // one refresh, nobody waited for it
    await h.answer(principal('k1', { band: 'silver' }));
    expect(await h.r.lookup('h1')).toMatchObject({ band: 'silver' });
    expect(h.calls).toHaveLength(0);
    expect(h.lookups).toEqual(['miss', 'hit', 'stale', 'stale', 'stale', 'hit']);
  });

  it('a failed refresh backs off (1 s, doubling to 4 s) instead of asking again on every request', async () => {
    const h = harness();
    await primed(h);
    h.advance(10_000);
    await h.r.lookup('h1');
    await h.answer('down');
    // Within the backoff: served, not refreshed.
    for (let i = 0; i < 5; i++) {
      h.advance(150);
      expect(await h.r.lookup('h1')).toMatchObject({ keyId: 'k1' });
    }
    expect(h.calls).toHaveLength(0);
    h.advance(250); // 1 s after the failure
    await h.r.lookup('h1');
    expect(h.calls).toHaveLength(1);
    await h.answer('down');
    h.advance(1_999);
    await h.r.lookup('h1');
    expect(h.calls).toHaveLength(0);
    h.advance(1);
    await h.r.lookup('h1');
    await h.answer('down'); // 3rd failure: 4 s
    h.advance(3_999);
    await h.r.lookup('h1');
    expect(h.calls).toHaveLength(0);
    h.advance(1);
    await h.r.lookup('h1');
    await h.answer('down'); // 4th: still 4 s (the cap)
    h.advance(4_000);
    await h.r.lookup('h1');
    expect(h.calls).toHaveLength(1);
    await h.answer(principal());
    expect(h.resolves).toEqual(['ok', 'failed', 'failed', 'failed', 'failed', 'ok']);
    // Back: fresh again, no backoff left.
    expect(h.cache.get('h1', 0)).toMatchObject({ source: 'accounting', failures: 0, retryAt: 0 });
  });

  it('during an outage, many requests for many keys cost one resolve per key per interval, and no request waits for one', async () => {
    const h = harness();
    for (const k of ['a', 'b', 'c']) await primed(h, k, principal(k));
    h.advance(10_000);
    let answered = 0;
    for (let round = 0; round < 10; round++) {
      for (const k of ['a', 'b', 'c']) {
        // Each lookup settles without any resolve call being answered: nobody waits the resolve timeout.
        await h.r.lookup(k).then(() => answered++);
      }
      while (h.calls.length) await h.answer('down');
      h.advance(100);
    }
    expect(answered).toBe(30);
    // The first round refreshed each key once (the 1 s backoff covers the other 9 rounds).
    expect(h.resolves.filter((x) => x === 'failed')).toHaveLength(3);
  });

  it('an invalidation while a refresh is out: the refresh answers its callers but caches nothing', async () => {
    const h = harness();
    await primed(h);
    h.advance(10_000);
    await h.r.lookup('h1');
    expect(h.calls).toHaveLength(1);
    h.cache.invalidate({ scopeType: 'key', scopeId: 'k1' });
    await h.answer(principal()); // read before the revocation
    // The next request asks again (and is refused).
    const again = h.r.lookup('h1');
    expect(h.calls).toHaveLength(1);
    await h.answer('not_found');
    expect(await again).toBeNull();
  });

  it('a revoked key: the invalidation drops the stale entry, so the next request waits for accounting instead of being served', async () => {
    const h = harness();
    await primed(h);
    h.advance(10_000);
    h.cache.invalidate({ scopeType: 'key', scopeId: 'k1' });
    const p = h.r.lookup('h1');
    await h.answer('not_found');
    expect(await p).toBeNull();
    expect(h.lookups.at(-1)).toBe('miss');
  });
});

describe('KeyResolution: accounting unreachable', () => {
  it('a key never used is answered from its published record, without asking accounting again for the retry interval', async () => {
    const h = harness();
    h.records.set('new', principal('k-new'));
    const first = h.r.lookup('new');
    await h.answer('down'); // the one request that finds out waits
    expect(await first).toMatchObject({ keyId: 'k-new' });
    expect(h.r.accountingDown()).toBe(true);
    h.records.set('other', principal('k-other'));
    for (let i = 0; i < 5; i++) expect(await h.r.lookup('other')).toMatchObject({ keyId: 'k-other' });
    expect(await h.r.lookup('new')).toMatchObject({ keyId: 'k-new' });
    expect(h.calls).toHaveLength(0);
    expect(h.resolves).toEqual(['failed']);
    expect(h.lookups).toEqual(['miss', 'miss', 'record', 'record', 'record', 'record', 'record']);
    // After the interval, one background refresh; accounting answers; the record is no longer used.
    h.advance(1_000);
    expect(await h.r.lookup('other')).toMatchObject({ keyId: 'k-other' });
    expect(h.calls).toHaveLength(1);
    await h.answer(principal('k-other', { band: 'fresh' }));
    expect(await h.r.lookup('other')).toMatchObject({ band: 'fresh' });
    expect(h.r.accountingDown()).toBe(false);
  });

  it('a revoked key (tombstone) is refused during the outage, even over a stale answer from accounting', async () => {
    const h = harness();
    h.records.set('gone', null);
    const p = h.r.lookup('gone');
    await h.answer('down');
    expect(await p).toBeNull();
    h.advance(1_000); // accounting is asked again
    await primed(h, 'cached', principal('k-cached'));
    h.records.set('cached', null);
    h.advance(10_000);
    await h.r.lookup('cached'); // stale, refresh started
    await h.answer('down');
    expect(await h.r.lookup('cached')).toBeNull();
  });

  it('no record and no cache: 503, answered at once (no resolve, no record read) until the retry time', async () => {
    const h = harness();
    const p = h.r.lookup('x');
    await h.answer('down');
    await expect(p).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE', message: expect.stringMatching(/cannot verify the API key/) });
    const reads = h.recordReads();
    for (let i = 0; i < 5; i++) await expect(h.r.lookup('x')).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
    expect(h.recordReads()).toBe(reads);
    expect(h.calls).toHaveLength(0);
    expect(h.lookups.slice(1)).toEqual(['unverified', 'unverified', 'unverified', 'unverified', 'unverified']);
    // The record appears (published meanwhile): at the retry time accounting is asked (still down), then the record read.
    h.records.set('x', principal('k-x'));
    h.advance(1_000);
    const again = h.r.lookup('x');
    expect(h.calls).toHaveLength(1);
    await h.answer('down');
    expect(await again).toMatchObject({ keyId: 'k-x' });
  });

  it('without published records (in-process stores without them): known keys from the cache, others 503', async () => {
    const h = harness({ records: false });
    await primed(h);
    h.advance(10_000);
    await h.r.lookup('h1');
    await h.answer('down');
    expect(await h.r.lookup('h1')).toMatchObject({ keyId: 'k1' });
    await expect(h.r.lookup('unknown')).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
  });

  it('an unreadable record counts as none', async () => {
    const h = harness();
    const r = new KeyResolution({
      cache: h.cache,
      resolve: async () => {
        throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'down');
      },
      published: async () => {
        throw new Error('redis down');
      },
      now: () => 0,
      retryMs: 1_000,
      maxRetryMs: 4_000,
    });
    await expect(r.lookup('z')).rejects.toMatchObject({ code: 'LLMGW_ERR_UNAVAILABLE' });
  });
});
