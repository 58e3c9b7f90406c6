import type { ServerResponse } from 'node:http';

interface Hold {
  release(): void;
}

/**
 * Holds the final `end()` of a client response until that request's usage
 * record is in the ledger, so a router killed at any instant never leaves a
 * completed response without its record. The router writes usage after the
 * response ends; this bridges that order without changing the router: the
 * request id is fixed before the handler runs (it reuses x-request-id), and
 * `release(id)` lets the held end through once the append is acknowledged.
 * Ids a client repeats on concurrent requests are released in arrival order.
 */
export class DurableEnds {
  private readonly held = new Map<string, Hold[]>();

  /**
   * @param maxHoldMs longest a finished response waits for its record
   * @param onTimeout called when a hold ends by its timer, not by the record (the record then
   *   sits only in router memory until the append is acknowledged)
   */
  constructor(
    private readonly maxHoldMs = 5_000,
    private readonly onTimeout: () => void = () => {},
  ) {}

  private drop(id: string, h: Hold): void {
    const list = this.held.get(id);
    if (!list) return;
    const i = list.indexOf(h);
    if (i >= 0) list.splice(i, 1);
    if (!list.length) this.held.delete(id);
  }

  /** Wraps `res.end` for request `id`. */
  track(id: string, res: ServerResponse): void {
    const origEnd = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    let recorded = false;
    let pending: unknown[] | undefined;
    let timer: NodeJS.Timeout | undefined;
    const hold: Hold = {
      release: () => {
        if (recorded) return;
        recorded = true;
        this.drop(id, hold);
        if (timer) clearTimeout(timer);
        res.end = origEnd as ServerResponse['end'];
        if (pending) origEnd(...pending);
      },
    };
    const list = this.held.get(id);
    if (list) list.push(hold);
    else this.held.set(id, [hold]);
    res.end = ((...args: unknown[]) => {
      if (recorded || pending) return origEnd(...args);
      pending = args;
      // Never hold a response forever if no record comes (e.g. a handler path that records nothing).
      timer = setTimeout(() => {
        if (!recorded) this.onTimeout();
        hold.release();
      }, this.maxHoldMs);
      timer.unref?.();
      return res;
    }) as ServerResponse['end'];
    res.once('close', () => this.drop(id, hold));
  }

  release(id: string): void {
    this.held.get(id)?.[0]?.release();
  }

  /** Requests currently tracked. */
  get size(): number {
    let n = 0;
    for (const l of this.held.values()) n += l.length;
    return n;
  }
}
