import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { hash32, contentText, chatHeadMessages, type BlockHashOptions, type ChatMessageLike } from '@llmgw/prefix';
import type { Logger } from '@llmgw/observability';
import { runTokenizeWorker, type KeyJob, type KeyReply } from './tokenize-worker';

/**
 * Where a worker thread finds `runTokenizeWorker` after loading the bundle (or source file) that holds
 * this module: a global set when this module is evaluated, so any bundle that includes the router
 * (`llmgw router`, `llmgw up`) can host the worker without exporting it.
 */
const WORKER_ENTRY = Symbol.for('llmgw.router.runTokenizeWorker');
(globalThis as Record<symbol, unknown>)[WORKER_ENTRY] = runTokenizeWorker;

/** Why a request was keyed for tier 1 only: its worker still loading (or restarting), its queue full, no answer in time, or the worker failed. */
export type TokenizeFallback = 'loading' | 'saturated' | 'timeout' | 'error';
export const TOKENIZE_FALLBACKS: readonly TokenizeFallback[] = ['loading', 'saturated', 'timeout', 'error'];

export type KeyOutcome = { readonly hashes: bigint[]; readonly ms: number } | { readonly fallback: TokenizeFallback };

/** What the pool's metrics read. */
export interface TokenizePoolStats {
  /** Message spans found in the workers' per-message token caches, and tokenized. */
  spanHits: number;
  spanMisses: number;
  /** Chat requests whose hash chain resumed from an earlier turn's, and from the first message. */
  resumed: number;
  fresh: number;
  fallbacks: Record<TokenizeFallback, number>;
  /** Workers with their tokenizer loaded. */
  ready: number;
  /** Jobs sent and not answered yet (a job that timed out still counts until its worker is done with it). */
  queued: number;
}

/** The part of a `Worker` the pool uses (tests pass a fake). */
export interface WorkerLike {
  postMessage(m: unknown): void;
  on(ev: 'message', fn: (m: unknown) => void): unknown;
  on(ev: 'error', fn: (e: Error) => void): unknown;
  on(ev: 'exit', fn: (code: number) => void): unknown;
  terminate(): Promise<number>;
}

export interface TokenizePoolOptions {
  workers: number;
  /** Jobs one worker may hold (sent, not answered); a request past it is keyed for tier 1. */
  maxQueue: number;
  /** The longest a request waits for its hashes. */
  timeoutMs: number;
  opts: BlockHashOptions;
  log: Logger;
  /** Starts worker `i` (tests); by default a worker thread running `runTokenizeWorker`. */
  spawn?: (i: number) => WorkerLike;
  /** Wait before a worker that exited is started again (doubled per exit in a row before it was ready, up to 60 s). */
  restartMs?: number;
}

interface Slot {
  worker: WorkerLike | undefined;
  ready: boolean;
  /** Jobs sent; `resolve` is cleared when the request stopped waiting (timeout). */
  pending: Map<number, { resolve: ((o: KeyOutcome) => void) | undefined; timer: NodeJS.Timeout }>;
  spans: { hits: number; misses: number };
  chains: { resumed: number; fresh: number };
  /** Exits in a row without becoming ready: each doubles the wait before the next start (a worker that cannot load). */
  failures: number;
}

/**
 * Tier-2 keying off the event loop (docs/prefix.md#block-hashes): worker threads that each load the
 * tokenizer and key requests with their own `ChatBlockHasher`. A conversation goes to one worker
 * (by its first messages), so its earlier turns are already tokenized and hashed there. A request
 * never waits longer than `timeoutMs`: when its worker holds `maxQueue` jobs (at once), or has not
 * answered in time — still loading the tokenizer, or busy — the request is keyed for tier 1 only
 * (the tree and the pending window still place it) and the worker's late answer still advances
 * the conversation's state.
 */
export class TokenizePool {
  private readonly slots: Slot[];
  private nextId = 0;
  private closed = false;
  private readonly fallbacks: Record<TokenizeFallback, number> = { loading: 0, saturated: 0, timeout: 0, error: 0 };

  constructor(private readonly o: TokenizePoolOptions) {
    this.slots = Array.from({ length: o.workers }, () => ({
      worker: undefined,
      ready: false,
      pending: new Map(),
      spans: { hits: 0, misses: 0 },
      chains: { resumed: 0, fresh: 0 },
      failures: 0,
    }));
    this.slots.forEach((_, i) => this.start(i));
  }

  /** Resolves once every worker has loaded its tokenizer (tests, benches; the router does not wait). */
  ready(): Promise<void> {
    return Promise.all(this.slots.map((s) => (s.ready ? undefined : new Promise<void>((res) => s.worker?.on('message', (m) => isReady(m) && res()))))).then(
      () => undefined,
    );
  }

  get stats(): TokenizePoolStats {
    const st: TokenizePoolStats = { spanHits: 0, spanMisses: 0, resumed: 0, fresh: 0, fallbacks: { ...this.fallbacks }, queued: 0, ready: 0 };
    for (const s of this.slots) {
      st.spanHits += s.spans.hits;
      st.spanMisses += s.spans.misses;
      st.resumed += s.chains.resumed;
      st.fresh += s.chains.fresh;
      st.queued += s.pending.size;
      if (s.ready) st.ready++;
    }
    return st;
  }

  /** Block hashes of a chat request's head (`maxChars` of rendered text), or why it gets none. */
  chat(messages: readonly ChatMessageLike[], maxChars: number): KeyOutcome | Promise<KeyOutcome> {
    const k = chatHeadMessages(messages, maxChars);
    // The head, plus the first message past it (which tells the worker the generation prompt is not keyed).
    const head = messages.slice(0, Math.min(messages.length, k + 1)).map((m) => ({ role: m.role, content: contentText(m.content) }));
    const first = head.length > 1 ? `${head[0].content.slice(0, 256)}\u001e${head[1].content.slice(0, 256)}` : (head[0]?.content.slice(0, 256) ?? '');
    return this.send({ chat: head, maxChars }, first);
  }

  /** Block hashes of a completion prompt's head. */
  text(prompt: string, maxChars: number): KeyOutcome | Promise<KeyOutcome> {
    return this.send({ text: prompt.length > maxChars ? prompt.slice(0, maxChars + 1) : prompt, maxChars }, prompt.slice(0, 256));
  }

  private send(job: KeyJob, affinity: string): KeyOutcome | Promise<KeyOutcome> {
    const slot = this.slots[this.slots.length === 1 ? 0 : hash32(affinity) % this.slots.length];
    // A worker being started again after it exited: nothing to queue on.
    if (!slot.worker) return this.fallback('loading');
    if (slot.pending.size >= this.o.maxQueue) return this.fallback('saturated');
    const id = this.nextId++;
    const worker = slot.worker;
    return new Promise<KeyOutcome>((resolve) => {
      // A job sent while the worker loads waits in its port; past the bound the request goes on without it.
      const timer = setTimeout(() => {
        const p = slot.pending.get(id);
        if (p?.resolve) {
          p.resolve = undefined;
          resolve(this.fallback(slot.ready ? 'timeout' : 'loading'));
        }
      }, this.o.timeoutMs);
      slot.pending.set(id, { resolve, timer });
      worker.postMessage({ id, job });
    });
  }

  private fallback(reason: TokenizeFallback): KeyOutcome {
    this.fallbacks[reason]++;
    return { fallback: reason };
  }

  private start(i: number): void {
    if (this.closed) return;
    const slot = this.slots[i];
    const w = (this.o.spawn ?? spawnTokenizeWorker(this.o.opts))(i);
    slot.worker = w;
    slot.ready = false;
    const t0 = performance.now();
    w.on('message', (m) => {
      if (isReady(m)) {
        slot.ready = true;
        slot.failures = 0;
        this.o.log.info({ worker: i, ms: Math.round(performance.now() - t0) }, 'prefix: tokenizer worker ready');
        return;
      }
      const r = m as KeyReply;
      slot.spans = r.spans;
      slot.chains = r.chains;
      const p = slot.pending.get(r.id);
      if (!p) return;
      slot.pending.delete(r.id);
      clearTimeout(p.timer);
      if (p.resolve) p.resolve(r.hashes ? { hashes: r.hashes, ms: r.ms } : this.fallback('error'));
    });
    w.on('error', (e) => this.o.log.warn({ worker: i, err: e.message }, 'prefix: tokenizer worker failed; its requests are keyed for tier 1'));
    w.on('exit', () => {
      if (slot.worker !== w) return;
      const wasReady = slot.ready;
      slot.worker = undefined;
      slot.ready = false;
      for (const p of slot.pending.values()) {
        clearTimeout(p.timer);
        if (p.resolve) p.resolve(this.fallback('error'));
      }
      slot.pending.clear();
      if (!wasReady) slot.failures++;
      const wait = Math.min(60_000, (this.o.restartMs ?? 1000) * 2 ** Math.max(0, slot.failures - 1));
      if (!this.closed) setTimeout(() => this.start(i), wait).unref();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map((s) => {
        const w = s.worker;
        s.worker = undefined;
        for (const p of s.pending.values()) {
          clearTimeout(p.timer);
          p.resolve?.({ fallback: 'error' });
        }
        s.pending.clear();
        return w?.terminate();
      }),
    );
  }
}

function isReady(m: unknown): boolean {
  return typeof m === 'object' && m !== null && (m as { ready?: unknown }).ready === true;
}

/**
 * A worker thread running `runTokenizeWorker`: in a bundle, from the worker's own entry built beside it
 * (`tokenize-worker.js`: the tokenizer and the block hashing, not the router); from the sources, the
 * entry loaded through tsx; in a bundle built without it, the bundle itself (which sets the global
 * below). The thread is unref'd: it never keeps the process alive.
 */
export function tokenizeWorkerFile(dir = __dirname, self = __filename): string {
  if (self.endsWith('.ts')) return resolve(dir, 'tokenize-worker-main.ts');
  const beside = resolve(dir, 'tokenize-worker.js');
  return existsSync(beside) ? beside : self;
}

function spawnTokenizeWorker(opts: BlockHashOptions): (i: number) => WorkerLike {
  const file = tokenizeWorkerFile();
  const code = [
    "const { workerData } = require('node:worker_threads');",
    "if (workerData.file.endsWith('.ts')) { process.env.TSX_TSCONFIG_PATH = process.env.TSX_TSCONFIG_PATH || workerData.tsconfig; require('tsx/cjs'); }",
    'require(workerData.file);',
    // A bundle of the whole router: it set the global when it was evaluated (the entry files start the worker themselves).
    "const run = globalThis[Symbol.for('llmgw.router.runTokenizeWorker')]; if (typeof run === 'function') run();",
  ].join('\n');
  const tsconfig = resolve(__dirname, '../../../../tsconfig.base.json');
  return () => {
    const w = new Worker(code, { eval: true, workerData: { file, tsconfig, opts } });
    w.unref();
    return w;
  };
}
