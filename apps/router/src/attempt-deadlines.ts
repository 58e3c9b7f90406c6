/** Timeouts for one upstream attempt (ms; 0 = none). */
export interface AttemptTimeouts {
  firstToken: number;
  total: number;
  idle: number;
}

/** The reason an attempt gives when it aborts its own upstream request: a limit passed, or the client left. */
export class AttemptAbort extends Error {
  constructor(readonly why: 'first_token' | 'total' | 'idle' | 'client') {
    super(why);
  }
}

/**
 * An attempt's three limits — total, first token, idle (reset by every chunk) — on one timer
 * instead of three, and a chunk only notes its time instead of re-inserting a timer: per open
 * stream, two Timeout objects and their closures less, and no timer-list work per chunk
 * (docs/performance.md, "Memory per stream"). The timer fires at the earliest deadline known when
 * it was set; a chunk that came since moves the idle deadline, and the timer is set again for it.
 */
export class AttemptDeadlines {
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (Infinity: none armed). */
  private armedAt = Infinity;
  private readonly totalAt: number;
  private firstAt: number;
  /** Idle counts from the stream's headers, then from each chunk (Infinity: not yet). */
  private lastByteAt = Infinity;

  constructor(
    private readonly t: AttemptTimeouts,
    t0: number,
    private readonly abort: (why: AttemptAbort['why']) => void,
  ) {
    this.totalAt = t.total > 0 ? t0 + t.total : Infinity;
    this.firstAt = t.firstToken > 0 ? t0 + t.firstToken : Infinity;
    this.arm(t0);
  }

  /** The first byte of the answer came: the first-token limit is met. */
  firstByte(): void {
    this.firstAt = Infinity;
  }

  /** A stream's headers came: the idle limit starts counting. */
  startIdle(): void {
    if (this.t.idle <= 0) return;
    const now = performance.now();
    this.lastByteAt = now;
    if (now + this.t.idle < this.armedAt) this.arm(now);
  }

  chunk(): void {
    if (this.lastByteAt !== Infinity) this.lastByteAt = performance.now();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
  }

  private idleAt(): number {
    return this.t.idle > 0 ? this.lastByteAt + this.t.idle : Infinity;
  }

  private arm(now: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Math.min(this.totalAt, this.firstAt, this.idleAt());
    if (this.armedAt !== Infinity) this.timer = setTimeout(() => this.fire(), Math.max(1, this.armedAt - now));
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = performance.now();
    if (now >= this.totalAt) this.abort('total');
    else if (now >= this.firstAt) this.abort('first_token');
    else if (now >= this.idleAt()) this.abort('idle');
    // Early (a chunk moved the idle deadline, or the loop's clock ran behind): wait for the next one.
    else this.arm(now);
  }
}
