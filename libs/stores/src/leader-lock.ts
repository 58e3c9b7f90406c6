/**
 * A named leader lock with fencing (plan: "one active instance holds the
 * leader lock"). Exactly one owner holds a name at a time; the holder must
 * renew before `ttlMs` passes or the lock lapses and another owner may take
 * it. Every successful acquisition returns a fencing token strictly greater
 * than any earlier token for that name, so downstream writes can reject a
 * stale leader that was paused past its TTL.
 *
 * Implemented in Redis (`RedisLeaderLock`, shared across processes) and in
 * process (`MemoryLeaderLock`, the single-machine mode); one contract suite
 * runs against both.
 */
export interface LeaderLock {
  /** Takes the lock for `owner` if it is free (or already `owner`'s); the fencing token, or undefined when held by another. */
  acquire(name: string, owner: string, ttlMs: number): Promise<number | undefined>;
  /** Extends the lock if `owner` still holds it with `token`; false when it was lost. */
  renew(name: string, owner: string, token: number, ttlMs: number): Promise<boolean>;
  /** Gives the lock up if `owner` holds it with `token`; false otherwise. */
  release(name: string, owner: string, token: number): Promise<boolean>;
  /** The current holder, if any. */
  holder(name: string): Promise<{ owner: string; token: number } | undefined>;
}

export interface LeaderElectionOptions {
  lock: LeaderLock;
  name: string;
  owner: string;
  /** How long the lock lives without renewal; failover takes at most this long. */
  ttlMs: number;
  /** How often to renew (holder) or retry (standby); default ttlMs / 3. */
  intervalMs?: number;
  onElected?: (token: number) => void;
  /** Called when leadership is lost (renewal failed or lock store unreachable). */
  onLost?: (reason: string) => void;
  onError?: (e: unknown) => void;
}

/**
 * Keeps trying to become leader and, once leader, keeps renewing. When a
 * renewal fails (lock taken or store unreachable) it reports `onLost` at once
 * — a leader that cannot prove it still holds the lock must stop acting as one.
 */
export class LeaderElection {
  private token: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(private readonly o: LeaderElectionOptions) {}

  get isLeader(): boolean {
    return this.token !== undefined;
  }

  get fencingToken(): number | undefined {
    return this.token;
  }

  /** Starts the loop; resolves after the first attempt. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.tick();
  }

  /** Stops the loop and releases the lock when held, so a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    const t = this.token;
    this.token = undefined;
    if (t !== undefined) {
      try {
        await this.o.lock.release(this.o.name, this.o.owner, t);
      } catch (e) {
        this.o.onError?.(e);
      }
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.o.intervalMs ?? Math.max(10, Math.floor(this.o.ttlMs / 3)));
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    const run = this.attempt();
    this.running = run;
    await run;
    this.running = undefined;
    this.schedule();
  }

  private async attempt(): Promise<void> {
    const { lock, name, owner, ttlMs } = this.o;
    try {
      if (this.token !== undefined) {
        const ok = await lock.renew(name, owner, this.token, ttlMs);
        if (!ok && !this.stopped) {
          // Say which: a lock that lapsed (this process was paused or starved past its TTL) is not one another owner took.
          const now = await lock.holder(name).catch(() => undefined);
          this.lose(now ? `lock taken by another owner (${now.owner})` : `lock lapsed: not renewed within its ${ttlMs} ms TTL`);
        }
      } else {
        const t = await lock.acquire(name, owner, ttlMs);
        if (t !== undefined && !this.stopped) {
          this.token = t;
          this.o.onElected?.(t);
        } else if (t !== undefined) {
          await lock.release(name, owner, t);
        }
      }
    } catch (e) {
      this.o.onError?.(e);
      if (this.token !== undefined && !this.stopped) this.lose('lock store unreachable');
    }
  }

  private lose(reason: string): void {
    this.token = undefined;
    this.o.onLost?.(reason);
  }
}
