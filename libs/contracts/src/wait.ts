/**
 * Waiting on a condition instead of sleeping: tests wait for the event they
 * need (a counter moved, a reply arrived) and fail loudly, naming it, if it
 * never comes. The default bound is generous on purpose: a busy machine makes
 * a test slow, never wrong.
 */
export interface WaitOptions {
  /** How long before giving up; default 15 s. */
  timeoutMs?: number;
  /** Pause between polls; default 5 ms. */
  everyMs?: number;
  /** What the timeout error should show of the state last seen (JSON-encoded). */
  seen?: () => unknown;
  /** A condition that throws counts as not yet met (a server still starting refuses connections). */
  ignoreErrors?: boolean;
}

/** What a condition resolves to once it holds: any value but false, 0, '', null and undefined. */
export type Met<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Resolves with the first truthy value `cond` returns (so a wait can hand over
 * what it waited for); rejects with "timed out after N ms waiting for <what>"
 * otherwise (`what` may be a function, to describe the state at that moment).
 */
export function waitUntil(cond: () => boolean | Promise<boolean>, what: string | (() => string), opts?: WaitOptions): Promise<void>;
export function waitUntil<T>(cond: () => T | Promise<T>, what: string | (() => string), opts?: WaitOptions): Promise<Met<T>>;
export async function waitUntil<T>(cond: () => T | Promise<T>, what: string | (() => string), opts: WaitOptions = {}): Promise<Met<T>> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const everyMs = opts.everyMs ?? 5;
  const end = Date.now() + timeoutMs;
  for (;;) {
    let v: T | undefined;
    try {
      v = await cond();
    } catch (e) {
      if (!opts.ignoreErrors) throw e;
    }
    if (v) return v as Met<T>;
    if (Date.now() > end)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}${opts.seen ? `; saw ${JSON.stringify(opts.seen())}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
