import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { MessageChannel } from 'node:worker_threads';
import { blockHashes, llama3ChatHeadTokens, llama3TextTokens, type ChatMessageLike } from '@llmgw/prefix';
import { createLogger } from '@llmgw/observability';
import { TokenizePool, type WorkerLike } from './tokenize-pool';
import { runTokenizeWorker, type KeyReply } from './tokenize-worker';

const log = createLogger({ service: 'router', level: 'silent' });
const opts = { blockSize: 16, hashSeed: '0' };

/** The real worker body on a MessageChannel in this thread. */
function inProcess(): { spawn: () => WorkerLike; close(): void } {
  const channels: MessageChannel[] = [];
  return {
    spawn() {
      const ch = new MessageChannel();
      channels.push(ch);
      const events = new EventEmitter();
      ch.port1.on('message', (m) => events.emit('message', m));
      // Started on the next turn, as a thread would be: the pool listens first.
      setImmediate(() => runTokenizeWorker(ch.port2, { opts }));
      return {
        postMessage: (m) => ch.port1.postMessage(m),
        on: (ev: string, fn: (m: unknown) => void) => events.on(ev, fn),
        terminate: async () => (ch.port1.close(), 0),
      } as WorkerLike;
    },
    close: () => channels.forEach((c) => (c.port1.close(), c.port2.close())),
  };
}

/** A worker that answers only when told to. */
class HeldWorker extends EventEmitter {
  readonly jobs: Array<{ id: number }> = [];
  postMessage(m: { id: number }): void {
    this.jobs.push(m);
  }
  ready(): void {
    this.emit('message', { ready: true });
  }
  answer(id: number, hashes: bigint[] = [1n]): void {
    const r: KeyReply = { id, hashes, ms: 0.1, spans: { hits: 0, misses: 0 }, chains: { resumed: 0, fresh: 0 } };
    this.emit('message', r);
  }
  async terminate(): Promise<number> {
    return 0;
  }
}

function held(o: { maxQueue?: number; timeoutMs?: number; restartMs?: number } = {}): { pool: TokenizePool; workers: HeldWorker[] } {
  const workers: HeldWorker[] = [];
  const pool = new TokenizePool({
    workers: 1,
    maxQueue: o.maxQueue ?? 4,
    timeoutMs: o.timeoutMs ?? 60_000,
    restartMs: o.restartMs ?? 0,
    opts,
    log,
    spawn: () => {
      const w = new HeldWorker();
      workers.push(w);
      return w as unknown as WorkerLike;
    },
  });
  return { pool, workers };
}

const msgs = (n: number): ChatMessageLike[] => [{ role: 'user', content: `question ${n}` }];

describe('TokenizePool (tier-2 keying off the event loop)', () => {
  afterEach(() => jest.useRealTimers());

  it("keys as the event loop would, and a conversation's next turn takes its earlier messages from the per-message cache", async () => {
    const w = inProcess();
    const pool = new TokenizePool({ workers: 1, maxQueue: 4, timeoutMs: 60_000, opts, log, spawn: w.spawn });
    try {
      await pool.ready();
      const id = randomUUID();
      const convo: ChatMessageLike[] = [
        { role: 'system', content: `A shared system prompt ${id}. `.repeat(20) },
        { role: 'user', content: `first question ${id}` },
      ];
      const first = await pool.chat(convo, 65_536);
      const before = pool.stats;
      const turn1 = [...convo];
      convo.push({ role: 'assistant', content: `an answer ${id}` }, { role: 'user', content: `and then? ${id}` });
      const next = await pool.chat(convo, 65_536);
      const after = pool.stats;
      // The first two messages came from the cache, the two new ones were tokenized; the chain resumed.
      // (Counted before the expected hashes below are computed: the worker shares this thread's cache.)
      expect({ hits: after.spanHits - before.spanHits, misses: after.spanMisses - before.spanMisses, resumed: after.resumed - before.resumed }).toEqual({
        hits: 2,
        misses: 2,
        resumed: 1,
      });
      expect(first).toEqual({ hashes: blockHashes(llama3ChatHeadTokens(turn1, 65_536), opts), ms: expect.any(Number) });
      expect(next).toEqual({ hashes: blockHashes(llama3ChatHeadTokens(convo, 65_536), opts), ms: expect.any(Number) });
      const text = `A completion prompt ${id}. `.repeat(10);
      expect(await pool.text(text, 65_536)).toEqual({ hashes: blockHashes(llama3TextTokens(text), opts), ms: expect.any(Number) });
    } finally {
      await pool.close();
      w.close();
    }
  }, 120_000);

  it('while the worker loads a request waits at most the timeout, then is keyed for tier 1 (loading); one sent in time is keyed once it is ready', async () => {
    jest.useFakeTimers();
    const { pool, workers } = held({ timeoutMs: 50 });
    const early = pool.chat(msgs(1), 1000);
    jest.advanceTimersByTime(50);
    await expect(early).resolves.toEqual({ fallback: 'loading' });
    const waiting = pool.chat(msgs(2), 1000);
    jest.advanceTimersByTime(20);
    workers[0].ready();
    workers[0].answer(workers[0].jobs[0].id);
    workers[0].answer(workers[0].jobs[1].id, [9n]);
    await expect(waiting).resolves.toEqual({ hashes: [9n], ms: 0.1 });
    expect(pool.stats).toMatchObject({ queued: 0, ready: 1, fallbacks: { loading: 1, timeout: 0 } });
    await pool.close();
  });

  it('a full queue falls back at once (saturated); an answer frees a place', async () => {
    const { pool, workers } = held({ maxQueue: 2 });
    workers[0].ready();
    const a = pool.chat(msgs(1), 1000);
    const b = pool.chat(msgs(2), 1000);
    expect(pool.chat(msgs(3), 1000)).toEqual({ fallback: 'saturated' });
    expect(pool.stats).toMatchObject({ queued: 2, fallbacks: { saturated: 1 } });
    workers[0].answer(workers[0].jobs[0].id, [7n]);
    await expect(a).resolves.toEqual({ hashes: [7n], ms: 0.1 });
    const c = pool.chat(msgs(4), 1000);
    expect(c).toBeInstanceOf(Promise);
    expect(pool.stats.queued).toBe(2);
    await pool.close();
    await expect(b).resolves.toEqual({ fallback: 'error' });
    await expect(c).resolves.toEqual({ fallback: 'error' });
  });

  it('a request waits at most the timeout; the late answer still frees its place in the queue', async () => {
    jest.useFakeTimers();
    const { pool, workers } = held({ maxQueue: 1, timeoutMs: 50 });
    workers[0].ready();
    const a = pool.chat(msgs(1), 1000);
    jest.advanceTimersByTime(49);
    expect(pool.stats.fallbacks.timeout).toBe(0);
    jest.advanceTimersByTime(1);
    await expect(a).resolves.toEqual({ fallback: 'timeout' });
    // The worker is still busy with it: the queue is full until it answers.
    expect(pool.chat(msgs(2), 1000)).toEqual({ fallback: 'saturated' });
    workers[0].answer(workers[0].jobs[0].id);
    expect(pool.stats.queued).toBe(0);
    expect(pool.chat(msgs(3), 1000)).toBeInstanceOf(Promise);
    await pool.close();
  });

  it('a worker that exits fails its requests over to tier 1 (error) and is started again', async () => {
    jest.useFakeTimers();
    const { pool, workers } = held({ restartMs: 1000 });
    workers[0].ready();
    const a = pool.chat(msgs(1), 1000);
    workers[0].emit('exit', 1);
    await expect(a).resolves.toEqual({ fallback: 'error' });
    // Until it is started again there is no worker to queue on.
    expect(pool.chat(msgs(2), 1000)).toEqual({ fallback: 'loading' });
    jest.advanceTimersByTime(1000);
    expect(workers).toHaveLength(2);
    workers[1].ready();
    expect(pool.stats.ready).toBe(1);
    expect(pool.chat(msgs(3), 1000)).toBeInstanceOf(Promise);
    // Exited after it was ready: started again after 1 s. One that cannot load (exits before it is
    // ready) is retried ever more slowly: 1 s, 2 s, 4 s.
    const after = (ms: number): number => (jest.advanceTimersByTime(ms), workers.length);
    workers[1].emit('exit', 1);
    expect(after(1000)).toBe(3);
    workers[2].emit('exit', 1);
    expect([after(999), after(1)]).toEqual([3, 4]);
    workers[3].emit('exit', 1);
    expect([after(1999), after(1)]).toEqual([4, 5]);
    workers[4].emit('exit', 1);
    expect([after(3999), after(1)]).toEqual([5, 6]);
    await pool.close();
  });
});
