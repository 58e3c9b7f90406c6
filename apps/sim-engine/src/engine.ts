import type { Clock } from '@llmgw/admission-core';
import { BlockManager } from './block-manager';
import { KvEventBus } from './kv-events';
import { EngineCounters, type EngineGauges } from './metrics';
import { type EngineOptions, type SchedulingPolicy, type SeqState, Sequence, type SubmitRequest, priorityOrder, realClock } from './sequence';

export { Sequence, priorityOrder, realClock } from './sequence';
export type { EngineOptions, SchedulingPolicy, SeqSink, SeqUsage, SubmitRequest } from './sequence';

/**
 * The simulated engine: a waiting queue (FIFO, or ordered by request priority
 * under `schedulingPolicy: 'priority'`), a running batch bounded by
 * max_num_seqs and by KV blocks, automatic prefix caching, and one shared
 * step loop (a single timer for the whole engine, never one per token).
 *
 * Timing model: a sequence's prefill takes uncached_prompt_tokens /
 * prefill_tps; its first token comes at the end of prefill; each further token
 * takes 1/decode_tps × (1 + batch_contention × (running − 1)).
 */
export class SimEngine {
  readonly waiting: Sequence[] = [];
  readonly running: Sequence[] = [];
  readonly counters = new EngineCounters();
  readonly kvEvents = new KvEventBus();
  readonly blocks: BlockManager;
  private nextId = 1;
  private immediate: NodeJS.Immediate | undefined;
  private timer: unknown;
  private timerDue = Infinity;
  private closed = false;

  constructor(
    readonly opts: EngineOptions,
    private readonly clock: Clock = realClock,
  ) {
    this.blocks = new BlockManager(opts.numGpuBlocks, opts.blockSize, opts.prefixCacheBlocks, this.kvEvents);
  }

  gauges(): EngineGauges {
    return {
      running: this.running.length,
      waiting: this.waiting.length,
      kvUsage: this.blocks.usage,
      usedBlocks: this.blocks.usedBlocks,
      numGpuBlocks: this.opts.numGpuBlocks,
      blockSize: this.opts.blockSize,
      maxNumSeqs: this.opts.maxNumSeqs,
      prefixCaching: this.opts.prefixCacheBlocks > 0,
    };
  }

  /** True when a prompt could never be scheduled, even on an empty engine. */
  tooLargeForCache(promptTokens: number): boolean {
    return Math.ceil((promptTokens + 1) / this.opts.blockSize) > this.opts.numGpuBlocks;
  }

  get policy(): SchedulingPolicy {
    return this.opts.schedulingPolicy ?? 'fcfs';
  }

  submit(req: SubmitRequest): Sequence {
    const seq = new Sequence(this.nextId++, req, this.clock.now(), this.opts.blockSize);
    const ahead = this.policy === 'priority' ? this.enqueueByPriority(seq) : this.waiting.push(seq) - 1;
    seq.aheadOnArrival = ahead;
    seq.slotFreeOnArrival = this.running.length + ahead < this.opts.maxNumSeqs;
    this.kick();
    return seq;
  }

  /** Inserts into the waiting queue at its (priority, arrival, id) place, after equals; returns that place. */
  private enqueueByPriority(seq: Sequence): number {
    let lo = 0;
    let hi = this.waiting.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (priorityOrder(this.waiting[mid], seq) <= 0) lo = mid + 1;
      else hi = mid;
    }
    this.waiting.splice(lo, 0, seq);
    return lo;
  }

  /** Drops a sequence (client gone): its blocks are freed at once. */
  abort(seq: Sequence): void {
    if (seq.state === 'done') return;
    if (seq.state === 'waiting') {
      const i = this.waiting.indexOf(seq);
      if (i >= 0) this.waiting.splice(i, 1);
    } else {
      this.removeRunning(seq);
      this.releaseBlocks(seq);
    }
    seq.state = 'done';
    this.counters.finished.abort++;
    this.kick();
  }

  /** Drops idle prefix-cache blocks (vLLM's /reset_prefix_cache). */
  resetPrefixCache(): number {
    const n = this.blocks.reset();
    this.kvEvents.flush();
    return n;
  }

  close(): void {
    this.closed = true;
    if (this.immediate) clearImmediate(this.immediate);
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.immediate = undefined;
    this.timer = undefined;
  }

  private kick(): void {
    if (this.immediate || this.closed) return;
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      this.step();
    });
  }

  private itlMs(): number {
    if (this.opts.decodeTps <= 0) return 0;
    return (1000 / this.opts.decodeTps) * (1 + this.opts.batchContention * Math.max(0, this.running.length - 1));
  }

  /** One engine iteration: admit, advance every due sequence, deliver output, re-arm the timer. */
  step(): void {
    if (this.closed) return;
    const now = this.clock.now();
    let pass = 0;
    for (; pass < 64; pass++) {
      const admitted = this.admit(now);
      const finished = this.advance(now);
      if ((admitted === 0 && finished === 0) || this.waiting.length === 0) break;
    }
    this.kvEvents.flush();
    // Out of passes with work left: yield to I/O, then continue.
    if (pass === 64) this.kick();
    else this.arm(now);
  }

  private arm(now: number): void {
    let due = Infinity;
    for (const s of this.running) if (s.nextAt < due) due = s.nextAt;
    if (due === Infinity) {
      if (this.timer !== undefined) this.clock.clearTimer(this.timer);
      this.timer = undefined;
      this.timerDue = Infinity;
      return;
    }
    if (due <= now) {
      this.kick();
      return;
    }
    if (this.timer !== undefined && this.timerDue <= due) return;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timerDue = due;
    this.timer = this.clock.setTimer(
      () => {
        this.timer = undefined;
        this.timerDue = Infinity;
        this.step();
      },
      Math.max(1, Math.ceil(due - now)),
    );
  }

  private admit(now: number): number {
    const bs = this.opts.blockSize;
    let n = 0;
    while (this.waiting.length > 0 && this.running.length < this.opts.maxNumSeqs) {
      const seq = this.waiting[0];
      // At least the last prompt token is always computed, as in vLLM.
      const maxHit = Math.min(seq.hashes.length, Math.floor((seq.promptLen - 1) / bs));
      const hits = this.blocks.lookup(seq.hashes, maxHit);
      const ctx = seq.promptLen + seq.generated;
      const need = Math.ceil((ctx + 1) / bs) - hits;
      if (this.blocks.available - this.blocks.idleAmong(seq.hashes, hits) < need) break; // head-of-line blocking
      this.waiting.shift();
      this.blocks.acquireCached(seq.hashes, hits);
      this.blocks.allocate(need);
      seq.shared = seq.hashes.slice(0, hits);
      seq.private = need;
      if (!seq.admitted) {
        seq.admitted = true;
        seq.admittedAt = now;
        seq.cachedTokens = hits * bs;
        this.counters.prefixQueries += seq.promptLen;
        this.counters.prefixHits += hits * bs;
      }
      seq.prefillTokens = ctx - hits * bs;
      seq.state = 'prefill';
      seq.nextAt = now + (this.opts.prefillTps > 0 ? (seq.prefillTokens / this.opts.prefillTps) * 1000 : 0);
      this.running.push(seq);
      n++;
    }
    return n;
  }

  /** Advances due sequences; returns how many finished or left the batch. */
  private advance(now: number): number {
    const bs = this.opts.blockSize;
    let left = 0;
    const batch = this.running.slice();
    for (const seq of batch) {
      if (seq.state === 'prefill') {
        if (seq.nextAt > now) continue;
        this.completePrefill(seq);
        if (seq.generated === 0) {
          this.emit(seq, now);
          if ((seq.state as SeqState) === 'done') {
            left++;
            continue;
          }
        }
        seq.state = 'decode';
        seq.nextAt += this.itlMs();
      }
      if (seq.state !== 'decode') continue;
      const itl = this.itlMs();
      if (seq.nextAt < now - itl) seq.nextAt = now - itl; // no bursts after a stalled loop
      while (seq.state === 'decode' && seq.nextAt <= now) {
        if (Math.ceil((seq.promptLen + seq.generated + 1) / bs) > seq.heldBlocks) {
          if (!this.growOrPreempt(seq)) break;
        }
        this.emit(seq, now);
        seq.nextAt += this.itlMs();
      }
      this.deliver(seq);
      if (seq.state !== 'decode') left++;
    }
    return left;
  }

  private completePrefill(seq: Sequence): void {
    // Once per request: recomputation after a preemption is not new prompt work served.
    if (!seq.promptCounted) {
      seq.promptCounted = true;
      this.counters.promptTokens += seq.promptLen;
    }
    const hits = seq.shared.length;
    if (hits < seq.hashes.length) {
      const referenced = this.blocks.insert(hits > 0 ? seq.hashes[hits - 1] : null, seq.hashes.slice(hits), seq.req.promptTokens, hits * this.opts.blockSize);
      seq.private -= referenced.length;
      for (const h of referenced) seq.shared.push(h);
    }
  }

  /**
   * The sequence to preempt when a running one needs a block and none is
   * free: the newest under `fcfs`; under `priority` the one with the highest
   * (priority, arrival) — the lowest priority, newest among equals — as in
   * vLLM's scheduler.
   */
  private victim(): Sequence {
    if (this.policy === 'fcfs') return this.running[this.running.length - 1];
    let v = this.running[0];
    for (const s of this.running) if (priorityOrder(s, v) > 0) v = s;
    return v;
  }

  /** Finds one more block for `seq`; preempts a victim (see `victim`) when none is free. */
  private growOrPreempt(seq: Sequence): boolean {
    while (!this.blocks.allocate(1)) {
      const victim = this.victim();
      if (victim === seq) {
        if (this.running.length === 1) {
          // Alone and still out of blocks: the sequence can never grow further.
          this.finish(seq, 'length', this.clock.now());
        } else {
          this.preempt(seq);
        }
        return false;
      }
      this.preempt(victim);
    }
    seq.private++;
    return true;
  }

  private preempt(seq: Sequence): void {
    this.deliver(seq);
    this.removeRunning(seq);
    this.releaseBlocks(seq);
    seq.state = 'waiting';
    // vLLM puts a preempted request back at the head of an FCFS queue, and at its
    // (priority, arrival) place in a priority queue.
    if (this.policy === 'priority') this.enqueueByPriority(seq);
    else this.waiting.unshift(seq);
    this.counters.preemptions++;
  }

  private emit(seq: Sequence, now: number): void {
    let piece = seq.words.next();
    seq.generated++;
    this.counters.generationTokens++;
    if (seq.generated === 1) {
      seq.firstTokenAt = now;
      this.counters.ttft.observe((now - seq.arrivedAt) / 1000);
      if (seq.req.requestId !== undefined) {
        this.counters.logRequest({
          request_id: seq.req.requestId,
          priority: seq.priority,
          prompt_tokens: seq.promptLen,
          slot_free_on_arrival: seq.slotFreeOnArrival,
          ahead_on_arrival: seq.aheadOnArrival,
          queued_ms: seq.admittedAt - seq.arrivedAt,
          ttft_ms: now - seq.arrivedAt,
        });
      }
    } else {
      this.counters.itl.observe((now - seq.lastTokenAt) / 1000);
    }
    seq.lastTokenAt = now;
    let stopped = false;
    const stops = seq.req.stop;
    if (stops && stops.length > 0) {
      const before = seq.text.length;
      seq.text += piece;
      for (const s of stops) {
        if (!s) continue;
        const at = seq.text.indexOf(s, Math.max(0, before - s.length + 1));
        if (at >= 0) {
          piece = at >= before ? piece.slice(0, at - before) : '';
          stopped = true;
          break;
        }
      }
    }
    if (piece) seq.pending.push(piece);
    if (stopped) this.finish(seq, 'stop', now);
    else if (seq.generated >= seq.req.maxTokens) this.finish(seq, seq.req.limitReason, now);
  }

  private deliver(seq: Sequence): void {
    if (seq.pending.length === 0) return;
    const texts = seq.pending;
    seq.pending = [];
    const first = !seq.sentAny;
    seq.sentAny = true;
    seq.req.sink.tokens(texts, first);
  }

  private finish(seq: Sequence, reason: 'stop' | 'length', now: number): void {
    this.deliver(seq);
    if (!seq.sentAny) {
      seq.sentAny = true;
      seq.req.sink.tokens([], true);
    }
    this.removeRunning(seq);
    this.releaseBlocks(seq);
    seq.state = 'done';
    this.counters.finished[reason]++;
    this.counters.e2e.observe((now - seq.arrivedAt) / 1000);
    seq.req.sink.finish(reason, { promptTokens: seq.promptLen, completionTokens: seq.generated, cachedTokens: seq.cachedTokens });
  }

  private removeRunning(seq: Sequence): void {
    const i = this.running.indexOf(seq);
    if (i >= 0) this.running.splice(i, 1);
  }

  private releaseBlocks(seq: Sequence): void {
    this.blocks.releaseCached(seq.shared);
    this.blocks.freePrivate(seq.private);
    seq.shared = [];
    seq.private = 0;
  }
}
