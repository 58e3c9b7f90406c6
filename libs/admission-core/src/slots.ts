/**
 * Learning an engine's batch slots from its own metrics, for an endpoint
 * that declares none (docs/admission.md, "Learned slots").
 *
 * An engine that has requests waiting (`waiting > 0`) runs all it can: its
 * running count at that moment is its slot count. Two kinds of noise make a
 * single such scrape a poor witness:
 *
 * - a scrape can catch the batch one short (a request finished, the next one
 *   not yet scheduled), so a full 6-slot engine reads 6, 5, 6, 6, 5 while its
 *   queue never empties — asking for the same value several scrapes *in a row*
 *   may never confirm anything;
 * - a CPU-starved engine shows a short queue at any batch size (requests that
 *   arrived before its next scheduling step), which must not be taken for a
 *   small engine: holding every band below the top at 1–2 slots is worse than
 *   not knowing.
 *
 * So the learner keeps the last `window` scrapes and learns `m` when at least
 * `confirmations` of them showed a queue while running exactly `m`, and no
 * scrape in the window ran more than `m` (flicker below `m` does not matter).
 * A learned value then:
 *
 * - rises at once when the engine is seen running more (it has at least as
 *   many slots as it ever ran at once: an engine restarted larger);
 * - falls only when the window shows a lasting queue at a smaller batch while
 *   the engine held at least the learned number of requests (running +
 *   waiting ≥ learned): a starved engine with a short queue and few requests
 *   does not qualify; one restarted with fewer slots does;
 * - is kept while nothing contradicts it — once admission holds the lower
 *   bands below the slots, the engine shows no queue at all, and that is the
 *   learned value working, not a reason to forget it.
 */

/** One scrape of a replica: the two numbers the learner reads. */
export interface SlotSample {
  running: number;
  waiting: number;
}

export interface SlotLearnerOptions {
  /** Scrapes kept per replica (default 10). */
  window?: number;
  /** Scrapes with a queue at the window's largest batch that learn it (default 3). */
  confirmations?: number;
}

export const DEFAULT_SLOT_WINDOW = 10;
export const DEFAULT_SLOT_CONFIRMATIONS = 3;

/** What the learner knows about one replica's slots. */
export class SlotLearner {
  private readonly size: number;
  private readonly need: number;
  private readonly win: SlotSample[] = [];
  private learnedSlots: number | undefined;
  private highWater = 0;
  private lastRunning = 0;
  private queueSeen = false;

  constructor(o: SlotLearnerOptions = {}) {
    this.need = Math.max(1, Math.floor(o.confirmations ?? DEFAULT_SLOT_CONFIRMATIONS));
    this.size = Math.max(this.need, Math.floor(o.window ?? DEFAULT_SLOT_WINDOW));
  }

  /** The learned slot count; undefined until the engine has shown it. */
  get learned(): number | undefined {
    return this.learnedSlots;
  }

  /** Highest `running` seen since the learner started. */
  get hwm(): number {
    return this.highWater;
  }

  /** Whether any scrape so far showed a queue in the engine. */
  get sawQueue(): boolean {
    return this.queueSeen;
  }

  /**
   * Batch capacity for the saturation detector: the learned slots; before
   * any queue, twice what it runs now — a slow start that doubles per scrape,
   * so a fresh engine reaches its real batch in a few scrapes. Once the engine
   * has shown a queue that was not confirmed as its slot count, the most it
   * has run — while the window still shows a queue. A whole window without
   * one, with the engine running that much, says the queue was noise (a
   * starved engine's next scheduling step, at any batch size): holding there
   * would keep the lower bands below the engine's real batch for good, since
   * admission then never lets it show a queue again. So the probe goes on, a
   * quarter at a time, until a queue shows (and is confirmed, or not).
   */
  capacity(): number {
    if (this.learnedSlots !== undefined) return this.learnedSlots;
    if (!this.queueSeen) return Math.max(this.highWater, 2 * this.lastRunning);
    const hold = this.win.length < this.size || this.lastRunning < this.highWater || this.win.some((x) => x.waiting > 0);
    return hold ? Math.max(1, this.highWater) : this.highWater + Math.max(1, Math.floor(this.highWater / 4));
  }

  /** Feeds one scrape; returns true when the learned value changed. */
  observe(s: SlotSample): boolean {
    const running = Number.isFinite(s.running) && s.running > 0 ? Math.floor(s.running) : 0;
    const waiting = Number.isFinite(s.waiting) && s.waiting > 0 ? Math.floor(s.waiting) : 0;
    this.win.push({ running, waiting });
    if (this.win.length > this.size) this.win.shift();
    this.lastRunning = running;
    this.highWater = Math.max(this.highWater, running);
    if (waiting > 0) this.queueSeen = true;
    const before = this.learnedSlots;

    // It ran this many at once: it has at least this many slots.
    if (this.learnedSlots !== undefined && running > this.learnedSlots) this.learnedSlots = running;

    let winMax = 0;
    let m = 0;
    for (const x of this.win) {
      winMax = Math.max(winMax, x.running);
      if (x.waiting > 0) m = Math.max(m, x.running);
    }
    if (m >= 1 && m === winMax) {
      const ref = this.learnedSlots ?? this.highWater;
      let atM = 0;
      let heldEnough = 0;
      for (const x of this.win) {
        if (x.waiting === 0 || x.running !== m) continue;
        atM++;
        if (x.running + x.waiting >= ref) heldEnough++;
      }
      if (m >= ref ? atM >= this.need : heldEnough >= this.need) this.learnedSlots = m;
    }
    return this.learnedSlots !== before;
  }
}
