import { ManualClock } from '@llmgw/admission-core';
import { SimEngine, type SeqSink, type SeqUsage } from './engine';
import type { KvEventBatch } from './kv-events';

function run(engine: SimEngine, prompt: number[], maxTokens: number): Promise<{ texts: string[]; reason: string; usage: SeqUsage }> {
  return new Promise((resolve) => {
    const texts: string[] = [];
    const sink: SeqSink = {
      tokens: (t) => texts.push(...t),
      finish: (reason, usage) => resolve({ texts, reason, usage }),
    };
    engine.submit({ promptTokens: prompt, maxTokens, limitReason: 'length', textSeed: 1, sink });
  });
}

const zero = { maxNumSeqs: 8, numGpuBlocks: 64, blockSize: 16, prefixCacheBlocks: 32, prefillTps: 0, decodeTps: 0, batchContention: 0 };
const prompt = (seed: number, n: number) => Array.from({ length: n }, (_, i) => seed * 100000 + i);

describe('SimEngine', () => {
  let engine: SimEngine;
  afterEach(() => engine.close());

  it('emits vLLM-shaped KV event batches: stored on first prefill, nothing new on a hit, cleared on reset', async () => {
    engine = new SimEngine(zero);
    const batches: KvEventBatch[] = [];
    engine.kvEvents.subscribe((b) => batches.push(b));
    const p = prompt(1, 40); // 2 full blocks + 8 tokens
    const first = await run(engine, p, 3);
    expect(first.usage).toEqual({ promptTokens: 40, completionTokens: 3, cachedTokens: 0 });
    expect(batches).toHaveLength(1);
    const [stored] = batches[0].events;
    expect(batches[0]).toMatchObject({ seq: 0, data_parallel_rank: 0, ts: expect.any(Number) });
    expect(stored).toMatchObject({ type: 'BlockStored', parent_block_hash: null, block_size: 16, medium: 'GPU', lora_name: null, lora_id: null });
    if (stored.type !== 'BlockStored') throw new Error('unreachable');
    expect(stored.block_hashes).toHaveLength(2);
    expect(stored.token_ids).toEqual(p.slice(0, 32));
    const second = await run(engine, p, 3);
    expect(second.usage.cachedTokens).toBe(32);
    expect(batches).toHaveLength(1);
    // an extension stores only the new block, chained to the cached one
    await run(engine, [...p.slice(0, 32), ...prompt(2, 20)], 1);
    const ext = batches[1].events[0];
    expect(ext).toMatchObject({ type: 'BlockStored', parent_block_hash: stored.block_hashes[1] });
    engine.resetPrefixCache();
    expect(batches.at(-1)).toMatchObject({ seq: 2, events: [{ type: 'AllBlocksCleared' }] });
    expect((await run(engine, p, 1)).usage.cachedTokens).toBe(0);
  });

  it('keeps block accounting balanced over many requests', async () => {
    engine = new SimEngine({ ...zero, numGpuBlocks: 20, maxNumSeqs: 3 });
    const done = await Promise.all(Array.from({ length: 30 }, (_, i) => run(engine, prompt(i % 5, 20 + (i % 7) * 9), 5 + (i % 11))));
    expect(done.every((d) => d.usage.completionTokens === d.texts.length)).toBe(true);
    expect(engine.running).toHaveLength(0);
    expect(engine.waiting).toHaveLength(0);
    expect(engine.blocks.usedBlocks).toBe(0);
    expect(engine.counters.finished.length).toBe(30);
  });

  it('finishes with "length" a sequence that alone outgrows the pool instead of deadlocking', async () => {
    engine = new SimEngine({ ...zero, numGpuBlocks: 3 });
    const r = await run(engine, prompt(1, 20), 100);
    expect(r.reason).toBe('length');
    expect(r.usage.completionTokens).toBeLessThan(100);
    expect(engine.blocks.usedBlocks).toBe(0);
  });
});

describe('SimEngine at zero latency', () => {
  it('drains a queue far longer than one step handles (no stall after the pass limit)', async () => {
    const engine = new SimEngine({ ...zero, maxNumSeqs: 1 });
    try {
      const done = await Promise.all(Array.from({ length: 300 }, (_, i) => run(engine, prompt(i, 5), 2)));
      expect(done).toHaveLength(300);
      expect(engine.waiting).toHaveLength(0);
    } finally {
      engine.close();
    }
  });
});

/** Moves `clock` to `until` a millisecond at a time, letting the engine's setImmediate steps run in between. */
async function runTo(clock: ManualClock, until: number): Promise<void> {
  while (clock.now() < until) {
    await new Promise((r) => setImmediate(r));
    clock.advance(1);
  }
  await new Promise((r) => setImmediate(r));
}

/** Submits at the clock's current time; records when (in simulated ms) the first token and the end came. */
function timed(engine: SimEngine, clock: ManualClock, prompt: number[], maxTokens: number) {
  const at = clock.now();
  const r = { ttft: -1, e2e: -1, usage: undefined as SeqUsage | undefined };
  engine.submit({
    promptTokens: prompt,
    maxTokens,
    limitReason: 'length',
    textSeed: 1,
    sink: {
      tokens: (_t, first) => {
        if (first) r.ttft = clock.now() - at;
      },
      finish: (_reason, usage) => {
        r.e2e = clock.now() - at;
        r.usage = usage;
      },
    },
  });
  return r;
}

describe('SimEngine timing model, on a manual clock', () => {
  let engine: SimEngine;
  afterEach(() => engine.close());

  it('prefill takes uncached prompt tokens / prefill_tps: a cache hit cuts TTFT from 400 ms to 4 ms', async () => {
    const clock = new ManualClock(0);
    engine = new SimEngine({ ...zero, numGpuBlocks: 256, prefixCacheBlocks: 256, prefillTps: 4000, decodeTps: 200 }, clock);
    const p = prompt(7, 1600); // 100 full blocks; a hit reuses 99 (the last prompt token is always computed)
    const cold = timed(engine, clock, p, 2);
    await runTo(clock, 1_000);
    const warm = timed(engine, clock, p, 2);
    await runTo(clock, 2_000);
    expect(cold.usage?.cachedTokens).toBe(0);
    expect(warm.usage?.cachedTokens).toBe(1584);
    expect(cold.ttft).toBe(400); // 1600 / 4000 s
    expect(warm.ttft).toBe(4); // 16 / 4000 s
    expect(cold.e2e).toBe(405); // + one token at 200 tokens/s
  });

  it('per-token latency is 1/decode_tps × (1 + batch_contention × (running − 1))', async () => {
    const clock = new ManualClock(0);
    engine = new SimEngine({ ...zero, decodeTps: 100, batchContention: 2 }, clock);
    const alone = timed(engine, clock, prompt(1, 4), 20);
    await runTo(clock, 500);
    const four = [1, 2, 3, 4].map((i) => timed(engine, clock, prompt(10 + i, 4), 20));
    await runTo(clock, 2_000);
    expect(alone.ttft).toBe(0); // prefill_tps 0: instantaneous
    expect(alone.e2e).toBe(190); // 19 more tokens × 10 ms
    for (const r of four) expect(r.e2e).toBe(19 * 10 * (1 + 2 * 3)); // 70 ms per token with 4 running
  });

  it('logs each request with an id at its first token: whether a slot was free, what was ahead, its queue time and TTFT', async () => {
    const clock = new ManualClock(0);
    // 2 slots, 100 ms prefill for 100 tokens, 10 ms a token
    engine = new SimEngine({ ...zero, maxNumSeqs: 2, numGpuBlocks: 256, prefillTps: 1000, decodeTps: 100 }, clock);
    const submit = (requestId: string | undefined, seed: number, maxTokens: number) =>
      engine.submit({
        promptTokens: prompt(seed, 100),
        maxTokens,
        limitReason: 'length',
        textSeed: seed,
        requestId,
        sink: { tokens: () => undefined, finish: () => undefined },
      });
    submit('a', 1, 5); // takes slot 1
    submit('b', 2, 5); // takes slot 2
    submit('c', 3, 2); // waits for a's end: 100 ms prefill + 4 more tokens at 10 ms = 140 ms
    submit(undefined, 4, 2); // no id: not logged
    await runTo(clock, 1_000);
    const log = engine.counters.requests();
    expect(log.map((e) => e.request_id)).toEqual(['a', 'b', 'c']);
    const [a, b, c] = log;
    expect(a).toMatchObject({ slot_free_on_arrival: true, ahead_on_arrival: 0, queued_ms: 0, ttft_ms: 100, prompt_tokens: 100, priority: 0 });
    expect(b).toMatchObject({ slot_free_on_arrival: true, ahead_on_arrival: 1, queued_ms: 0, ttft_ms: 100 });
    expect(c).toMatchObject({ slot_free_on_arrival: false, ahead_on_arrival: 2, queued_ms: 140, ttft_ms: 240 });
    expect(engine.counters.requests('b')).toEqual([b]);
  });

  it('keeps the newest 4096 entries of the request log, oldest first', () => {
    engine = new SimEngine(zero);
    for (let i = 0; i < 4100; i++) {
      engine.counters.logRequest({
        request_id: `r${i}`,
        priority: 0,
        prompt_tokens: 1,
        slot_free_on_arrival: true,
        ahead_on_arrival: 0,
        queued_ms: 0,
        ttft_ms: 0,
      });
    }
    const ids = engine.counters.requests().map((e) => e.request_id);
    expect(ids).toHaveLength(4096);
    expect(ids[0]).toBe('r4');
    expect(ids.at(-1)).toBe('r4099');
  });
});
