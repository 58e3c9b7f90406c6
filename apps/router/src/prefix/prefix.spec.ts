import { randomUUID } from 'node:crypto';
import { encode } from '@msgpack/msgpack';
import { llama3ChatTokens, PrefixIndex } from '@llmgw/prefix';
import { createLogger } from '@llmgw/observability';
import { decodeBatch, seqFrame, seqOf } from './kv-wire';
import { promptText, promptTokenIds } from './prompt';
import { routerConfigSchema } from '@llmgw/config';
import { createRegistry } from '@llmgw/observability';
import { redisPool } from '@llmgw/service';
import type { RoutingProfile } from '@llmgw/scheduling';
import { createPrefixRouting } from './index';
import { decodeInsert, encodeInsert, PrefixShare, shareChannel } from './share';
import { waitUntil } from '@llmgw/testing';

const log = createLogger({ service: 'router', level: 'silent' });

describe('KV event wire decoding', () => {
  it('reads both event layouts, uint64 and byte-string hashes, and skips unknown kinds', () => {
    const big = 0xf5b1_0d6b_7c2e_aa01n;
    const bytes = Buffer.alloc(32, 0xab);
    bytes.writeBigUInt64BE(7n, 24);
    const payload = encode(
      [
        1700000000.5,
        [
          ['BlockStored', [big, 5], null, [1, 2], 16, null, 'GPU'],
          { type: 'BlockStored', block_hashes: [bytes], parent_block_hash: big, token_ids: [], block_size: 16, lora_id: null, medium: 'GPU', lora_name: null },
          ['BlockRemoved', [5], 'GPU'],
          { type: 'AllBlocksCleared' },
          { type: 'SomethingNew' },
        ],
        0,
      ],
      { useBigInt64: true },
    );
    const b = decodeBatch(9n, payload);
    expect(b.seq).toBe(9);
    expect(b.events).toEqual([
      { type: 'BlockStored', blockHashes: [big, 5n], parentBlockHash: null },
      { type: 'BlockStored', blockHashes: [7n], parentBlockHash: big },
      { type: 'BlockRemoved', blockHashes: [5n] },
      { type: 'AllBlocksCleared' },
    ]);
  });

  it('accepts the v0.9 batch without data_parallel_rank and rejects garbage', () => {
    expect(decodeBatch(0n, encode([1, []])).events).toEqual([]);
    expect(() => decodeBatch(0n, encode({ a: 1 }))).toThrow(/batch/);
    expect(() => decodeBatch(0n, encode([1, [['BlockStored', 'x']]]))).toThrow(/block_hashes/);
  });

  it('sequence frames are 8-byte big-endian', () => {
    expect(seqFrame(258).toString('hex')).toBe('0000000000000102');
    expect(seqOf(seqFrame(258))).toBe(258n);
    expect(() => seqOf(Buffer.alloc(4))).toThrow(/8/);
  });
});

describe('prompt text for tier 1', () => {
  it('renders chat turns so that a later turn extends the earlier one', () => {
    const t1 = promptText('chat', {
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'hi' },
      ],
    })!;
    const t2 = promptText('chat', {
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'yo' },
        { role: 'user', content: [{ type: 'text', text: 'more' }] },
      ],
    })!;
    expect(t2.startsWith(t1)).toBe(true);
    expect(promptText('completions', { prompt: 'abc' })).toBe('abc');
    expect(promptText('embeddings', { input: 'x' })).toBeUndefined();
  });

  it('keys token-id prompts by their ids, apart from any text, and extends them like text', () => {
    const a = promptText('completions', { prompt: [128000, 9906, 1917] })!;
    expect(promptText('completions', { prompt: [[128000, 9906, 1917, 13]] })!.startsWith(a)).toBe(true);
    expect(a.startsWith('128000')).toBe(false);
    expect(promptText('completions', { prompt: '128000,9906,1917,' })).not.toBe(a);
    expect(promptTokenIds('completions', { prompt: [[1, 2], [3]] })).toBeUndefined();
    expect(promptTokenIds('completions', { prompt: [1, 2.5] })).toBeUndefined();
    expect(promptTokenIds('completions', { prompt: [1, -2] })).toBeUndefined();
    expect(promptTokenIds('completions', { prompt: [] })).toBeUndefined();
    expect(promptTokenIds('chat', { prompt: [1] })).toBeUndefined();
    expect(promptText('completions', { prompt: [[1, 2], [3]] })).toBeUndefined();
  });
});

describe('prompt keys', () => {
  // 1 worker: a real worker thread (the sources through tsx), the same keys as on the event loop.
  it.each([0, 1])(
    'keys only the head of a huge prompt (prefix.max_prompt_chars), in both tiers (tokenize_workers %d)',
    async (workers) => {
      const cfg = routerConfigSchema.parse({
        prefix: { max_prompt_chars: 4096, kv_events: { enabled: true, models: ['m'], tokenize_workers: workers, tokenize_timeout: 60_000 } },
      });
      const routing = createPrefixRouting(cfg, { log, registry: createRegistry('router') });
      await routing.tokenizerReady();
      const profile = { name: 'p', filters: [], picker: {}, scorers: [{ weight: 1, scorer: { type: 'prefix-scorer' } }] } as unknown as RoutingProfile;
      try {
        const huge = 'The same sentence over and over again. '.repeat(110_000);
        const completion = (await routing.promptFor('completions', { prompt: huge }, 'm', profile))!;
        expect(completion.text).toBe(huge.slice(0, 4096));
        // Tier 2: the head's tokens less a block's worth (about 4096 / 4 tokens), not the 4 MB's.
        expect(completion.blockHashes!.length).toBeGreaterThan(30);
        expect(completion.blockHashes!.length).toBeLessThan(4096 / 16);
        const chat = (await routing.promptFor(
          'chat',
          {
            messages: [
              { role: 'system', content: 'Be brief. '.repeat(100) },
              { role: 'user', content: huge },
            ],
          },
          'm',
          profile,
        ))!;
        expect(chat.text.length).toBe(4096);
        // Only the system message fits: its blocks, without the user's.
        expect(chat.blockHashes!.length).toBe(Math.floor(llama3SystemOnly().length / 16));
        const ids = Array.from({ length: 5000 }, (_, i) => i % 1000);
        expect((await routing.promptFor('completions', { prompt: ids }, 'm', profile))!.blockHashes!.length).toBe(1024 / 16);
        // A prompt that fits is keyed whole.
        expect((await routing.promptFor('completions', { prompt: 'short' }, 'm', profile))!.text).toBe('short');
      } finally {
        await routing.close();
      }
    },
    120_000,
  );
});

function llama3SystemOnly(): number[] {
  const all = llama3ChatTokens([{ role: 'system', content: 'Be brief. '.repeat(100) }]);
  return all.slice(0, all.length - llama3ChatTokens([]).length);
}

describe('tree sharing between routers (Redis pub/sub)', () => {
  it('encodes chunk hashes exactly and refuses malformed messages', () => {
    const ins = { model: 'm', tenant: 'r1', hashes: [0, 1, 2 ** 53 - 1, 123456789012345] };
    expect(decodeInsert(encodeInsert('o', ins))).toEqual({ origin: 'o', insert: ins });
    expect(decodeInsert(encode([2, 'o', 'm', 'r', new Uint8Array(8)]))).toBeUndefined();
    expect(decodeInsert(encode([1, 'o', 'm', 'r', new Uint8Array(7)]))).toBeUndefined();
    expect(decodeInsert(Buffer.from('not msgpack at all'))).toBeUndefined();
    expect(shareChannel('llmgw:')).toBe('llmgw:prefix:v1:inserts');
  });

  it("one router's inserts reach the other's tree, not its own twice", async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const a = new PrefixIndex();
    const b = new PrefixIndex();
    const redis = redisPool(log);
    const clients = async () => ({
      publisher: await redis.connect('prefix share', 'redis://127.0.0.1:6379'),
      subscriber: await redis.connect('prefix share subscriber', 'redis://127.0.0.1:6379', { kind: 'subscriber' }),
    });
    const sa = new PrefixShare({ ...(await clients()), keyPrefix, log, apply: (i) => a.applyRemote(i) });
    const sb = new PrefixShare({ ...(await clients()), keyPrefix, log, apply: (i) => b.applyRemote(i) });
    try {
      await Promise.all([sa.open(), sb.open()]);
      expect(sa.ready && sb.ready).toBe(true);
      a.onInsert = (i) => sa.publish(i);
      const text = 'A shared system prompt that is long enough to span chunks. '.repeat(8);
      a.record('m', { text }, 'replica-1');
      await waitUntil(() => sb.stats.received > 0, 'the insert to reach the other router', { timeoutMs: 10_000 });
      expect(b.lookup('m', { text })!.ratios.get('replica-1')).toBe(1);
      expect(sa.stats).toMatchObject({ sent: 1, received: 0 });
    } finally {
      await sa.close();
      await sb.close();
      await redis.close();
    }
  });
});
