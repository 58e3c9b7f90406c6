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
}

/** Resolves once `cond` returns true; rejects with "timed out waiting for <what>" otherwise. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, what: string, opts: WaitOptions = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const everyMs = opts.everyMs ?? 5;
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
