/**
 * Failed sign-ins counted per account and per address in a sliding window
 * (docs/portal.md, "Security"): past the limit, sign-in answers
 * RESOURCE_EXHAUSTED with the seconds to wait, even with the right password.
 * Kept in the accounting process; a success clears the account's count.
 */
export class AttemptLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limits: { perAccount: number; perAddress: number; windowMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string): number[] {
    const since = this.now() - this.limits.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** Seconds until another attempt is allowed; 0 = allowed now. */
  retryAfter(account: string, address: string): number {
    const checks: Array<[string, number]> = [[`a:${account}`, this.limits.perAccount], [`ip:${address}`, this.limits.perAddress]];
    let wait = 0;
    for (const [key, max] of checks) {
      const list = this.recent(key);
      if (list.length >= max) wait = Math.max(wait, Math.ceil((list[list.length - max]! + this.limits.windowMs - this.now()) / 1000));
    }
    return wait;
  }

  fail(account: string, address: string): void {
    for (const key of [`a:${account}`, `ip:${address}`]) this.failures.set(key, [...this.recent(key), this.now()]);
    if (this.failures.size > 100_000) this.failures.delete(this.failures.keys().next().value!);
  }

  succeed(account: string): void {
    this.failures.delete(`a:${account}`);
  }
}
