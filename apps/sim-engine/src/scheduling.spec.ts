import { SimEngine, type EngineOptions, type SchedulingPolicy } from './engine';

/**
 * The two scheduling policies against what vLLM documents and does for
 * `--scheduling-policy` (vllm/v1/core/sched: the waiting queue is a heap on
 * `Request.__lt__` = (priority, arrival_time, request_id); a running request
 * that cannot get a KV block preempts `max(running, key=(priority,
 * arrival_time))` under `priority` and the newest running request under
 * `fcfs`; a waiting request never evicts a running one to get a batch slot).
 * Order is observed through completion callbacks, never timing.
 */

const base: EngineOptions = { maxNumSeqs: 1, numGpuBlocks: 64, blockSize: 16, prefixCacheBlocks: 0, prefillTps: 0, decodeTps: 0, batchContention: 0 };
const prompt = (seed: number, n: number) => Array.from({ length: n }, (_, i) => seed * 100000 + i);

interface Job {
  name: string;
  priority: number;
  promptLen?: number;
  maxTokens?: number;
}

/** Submits every job in the same tick and resolves with the names in completion order. */
function runAll(engine: SimEngine, jobs: Job[], onFirstToken?: (name: string) => void): Promise<string[]> {
  const done: string[] = [];
  return new Promise((resolve) => {
    jobs.forEach((j, i) =>
      engine.submit({
        promptTokens: prompt(i + 1, j.promptLen ?? 8),
        maxTokens: j.maxTokens ?? 2,
        limitReason: 'length',
        textSeed: i,
        priority: j.priority,
        sink: {
          tokens: (_t, first) => (first ? onFirstToken?.(j.name) : undefined),
          finish: () => {
            done.push(j.name);
            if (done.length === jobs.length) resolve(done);
          },
        },
      }),
    );
  });
}

describe('sim-engine scheduling policies (vLLM --scheduling-policy)', () => {
  let engine: SimEngine;
  afterEach(() => engine.close());

  const jobs: Job[] = [
    { name: 'a', priority: 5 },
    { name: 'b', priority: 1 },
    { name: 'c', priority: 1 },
    { name: 'd', priority: -3 },
    { name: 'e', priority: 5 },
  ];

  it.each<[SchedulingPolicy, string[]]>([
    ['fcfs', ['a', 'b', 'c', 'd', 'e']],
    // lower value first; equal priorities by arrival (b before c, a before e)
    ['priority', ['d', 'b', 'c', 'a', 'e']],
  ])('%s serves one slot in the order %j', async (policy, order) => {
    engine = new SimEngine({ ...base, schedulingPolicy: policy });
    expect(await runAll(engine, jobs)).toEqual(order);
    expect(engine.counters.preemptions).toBe(0);
  });

  it('defaults to fcfs, where request priorities are ignored', async () => {
    engine = new SimEngine(base);
    expect(engine.policy).toBe('fcfs');
    expect(await runAll(engine, jobs)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('priority: a higher-priority arrival waits for a free slot (no preemption for slots), then goes before earlier lower ones', async () => {
    engine = new SimEngine({ ...base, decodeTps: 500, schedulingPolicy: 'priority' });
    const done: string[] = [];
    const submit = (name: string, priority: number, maxTokens: number, first?: () => void) =>
      new Promise<void>((resolve) => {
        engine.submit({
          promptTokens: prompt(name.charCodeAt(0), 8),
          maxTokens,
          limitReason: 'length',
          textSeed: 1,
          priority,
          sink: { tokens: (_t, f) => (f ? first?.() : undefined), finish: () => (done.push(name), resolve()) },
        });
      });
    let later: Array<Promise<void>> = [];
    // While the low-priority request runs (it has 19 tokens left), a second low one and then a high one arrive.
    await Promise.all([
      submit('low-running', 10, 20, () => {
        later = [submit('low-waiting', 10, 2), submit('high', 0, 2)];
      }),
    ]);
    await Promise.all(later);
    expect(done).toEqual(['low-running', 'high', 'low-waiting']);
    expect(engine.counters.preemptions).toBe(0);
  });

  // Six 16-token blocks; three 31-token prompts take two blocks each. Each needs a third block
  // for its second token, so the first to grow must preempt someone.
  const kvShort: Job[] = [
    { name: 'low-oldest', priority: 10, promptLen: 31, maxTokens: 10 },
    { name: 'high', priority: 0, promptLen: 31, maxTokens: 10 },
    { name: 'mid-newest', priority: 5, promptLen: 31, maxTokens: 10 },
  ];

  it.each<[SchedulingPolicy, string, string[]]>([
    // fcfs evicts the newest running request, whatever its priority
    ['fcfs', 'mid-newest', ['low-oldest', 'high', 'mid-newest']],
    // priority evicts the lowest priority (even though it is the oldest); it resumes last
    ['priority', 'low-oldest', ['high', 'mid-newest', 'low-oldest']],
  ])('%s: KV blocks short → preempts %s, recomputed after the others', async (policy, _victim, order) => {
    engine = new SimEngine({ ...base, maxNumSeqs: 4, numGpuBlocks: 6, schedulingPolicy: policy });
    expect(await runAll(engine, kvShort)).toEqual(order);
    expect(engine.counters.preemptions).toBe(1);
  });

  it('priority: among equal priorities the newest running request is the victim', async () => {
    engine = new SimEngine({ ...base, maxNumSeqs: 4, numGpuBlocks: 6, schedulingPolicy: 'priority' });
    const equal = kvShort.map((j) => ({ ...j, priority: 3 }));
    expect(await runAll(engine, equal)).toEqual(['low-oldest', 'high', 'mid-newest']);
    expect(engine.counters.preemptions).toBe(1);
  });
});
