import type { Clock } from '@llmgw/admission-core';
import { blockHash } from './rng';
import { WordStream } from './tokens';

/** The scheduler's knobs (a subset of the app config). */
export interface EngineOptions {
  maxNumSeqs: number;
  numGpuBlocks: number;
  blockSize: number;
  prefixCacheBlocks: number;
  /** Prompt tokens/s; 0 = instantaneous. */
  prefillTps: number;
  /** Tokens/s of a sequence running alone; 0 = instantaneous. */
  decodeTps: number;
  batchContention: number;
  /**
   * vLLM's `--scheduling-policy`: `fcfs` serves the waiting queue in arrival
   * order and preempts the newest running sequence; `priority` serves it by
   * (priority, arrival) — lower value first — and preempts the running
   * sequence with the highest (priority, arrival). Default `fcfs`.
   */
  schedulingPolicy?: SchedulingPolicy;
}

export type SchedulingPolicy = 'fcfs' | 'priority';

/**
 * Where the engine reads the time and keeps its one timer (admission-core's
 * Clock): real time by default; tests pass a ManualClock and step the engine
 * through simulated milliseconds exactly, however busy the machine is.
 */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface SeqUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

/** Where a sequence's output goes (the HTTP layer). */
export interface SeqSink {
  /** Newly generated token texts, once per engine step; `first` on the first call. */
  tokens(texts: string[], first: boolean): void;
  finish(reason: 'stop' | 'length', usage: SeqUsage): void;
}

export interface SubmitRequest {
  promptTokens: number[];
  /** Tokens to generate at most. */
  maxTokens: number;
  /** finish_reason when maxTokens is reached: 'length' for an explicit limit, 'stop' for the default. */
  limitReason: 'stop' | 'length';
  stop?: string[];
  /** Seeds the generated words. */
  textSeed: number;
  /** vLLM's request `priority`: lower is served first under the `priority` policy (default 0). */
  priority?: number;
  /** The request's `x-request-id`, when it had one: its first token is then kept in the request log. */
  requestId?: string;
  sink: SeqSink;
}

export type SeqState = 'waiting' | 'prefill' | 'decode' | 'done';

export class Sequence {
  state: SeqState = 'waiting';
  generated = 0;
  cachedTokens = 0;
  /** Prefix-cache entries this sequence references, in block order. */
  shared: number[] = [];
  /** Blocks held privately (partial blocks, uncached ones). */
  private = 0;
  admitted = false;
  /** Engine clock when the sequence first entered the running batch. */
  admittedAt = 0;
  /** Whether a batch slot was free for it when it arrived (no wait for a running sequence to finish). */
  slotFreeOnArrival = true;
  /** Sequences ahead of it in the waiting queue when it arrived. */
  aheadOnArrival = 0;
  promptCounted = false;
  prefillTokens = 0;
  nextAt = 0;
  firstTokenAt = 0;
  lastTokenAt = 0;
  pending: string[] = [];
  sentAny = false;
  text = '';
  readonly words: WordStream;
  readonly promptLen: number;
  /** Hashes of the prompt's full blocks. */
  readonly hashes: number[];
  readonly priority: number;

  constructor(
    readonly id: number,
    readonly req: SubmitRequest,
    readonly arrivedAt: number,
    blockSize: number,
  ) {
    this.words = new WordStream(req.textSeed);
    this.promptLen = req.promptTokens.length;
    this.priority = req.priority ?? 0;
    const full = Math.floor(this.promptLen / blockSize);
    this.hashes = new Array<number>(full);
    let parent: number | null = null;
    for (let i = 0; i < full; i++) {
      parent = blockHash(parent, req.promptTokens, i * blockSize, (i + 1) * blockSize);
      this.hashes[i] = parent;
    }
  }

  get heldBlocks(): number {
    return this.shared.length + this.private;
  }
}

/**
 * Scheduling order under the `priority` policy, as vLLM's `Request.__lt__`:
 * priority, then arrival, then id (ids grow with arrival, so equal priorities
 * are first come, first served).
 */
export function priorityOrder(a: Sequence, b: Sequence): number {
  return a.priority - b.priority || a.arrivedAt - b.arrivedAt || a.id - b.id;
}
