import type { ServerResponse } from 'node:http';

/**
 * Holds the final `end()` of a client response until that request's usage
 * record is in the ledger, so a router killed at any instant never leaves a
 * completed response without its record. The router writes usage after the
 * response ends; this bridges that order without changing the router: the
 * request id is fixed before the handler runs (it reuses x-request-id), and
 * `release(id)` lets the held end through once the append is acknowledged.
 */
export class DurableEnds {
  private readonly held = new Map<string, { release(): void }>();

  constructor(private readonly maxHoldMs = 5_000) {}

  /** Wraps `res.end` for request `id`. */
  track(id: string, res: ServerResponse): void {
    const origEnd = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    let recorded = false;
    let pending: unknown[] | undefined;
    let timer: NodeJS.Timeout | undefined;
    const release = () => {
      if (recorded) return;
      recorded = true;
      this.held.delete(id);
      if (timer) clearTimeout(timer);
      res.end = origEnd as ServerResponse['end'];
      if (pending) origEnd(...pending);
    };
    this.held.set(id, { release });
    res.end = ((...args: unknown[]) => {
      if (recorded || pending) return origEnd(...args);
      pending = args;
      // Never hold a response forever if no record comes (e.g. a handler path that records nothing).
      timer = setTimeout(release, this.maxHoldMs);
      timer.unref?.();
      return res;
    }) as ServerResponse['end'];
    res.once('close', () => this.held.delete(id));
  }

  release(id: string): void {
    this.held.get(id)?.release();
  }

  get size(): number {
    return this.held.size;
  }
}
