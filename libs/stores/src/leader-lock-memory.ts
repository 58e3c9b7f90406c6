import type { LeaderLock } from './leader-lock';

/** The in-process leader lock: the single-machine mode, same contract as Redis. */
export class MemoryLeaderLock implements LeaderLock {
  private readonly held = new Map<string, { owner: string; token: number; expiresAt: number }>();
  private readonly fence = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  private live(name: string) {
    const h = this.held.get(name);
    if (h && h.expiresAt <= this.now()) {
      this.held.delete(name);
      return undefined;
    }
    return h;
  }

  async acquire(name: string, owner: string, ttlMs: number): Promise<number | undefined> {
    const h = this.live(name);
    if (h) {
      if (h.owner !== owner) return undefined;
      h.expiresAt = this.now() + ttlMs;
      return h.token;
    }
    const token = (this.fence.get(name) ?? 0) + 1;
    this.fence.set(name, token);
    this.held.set(name, { owner, token, expiresAt: this.now() + ttlMs });
    return token;
  }

  async renew(name: string, owner: string, token: number, ttlMs: number): Promise<boolean> {
    const h = this.live(name);
    if (!h || h.owner !== owner || h.token !== token) return false;
    h.expiresAt = this.now() + ttlMs;
    return true;
  }

  async release(name: string, owner: string, token: number): Promise<boolean> {
    const h = this.live(name);
    if (!h || h.owner !== owner || h.token !== token) return false;
    this.held.delete(name);
    return true;
  }

  async holder(name: string) {
    const h = this.live(name);
    return h ? { owner: h.owner, token: h.token } : undefined;
  }
}
