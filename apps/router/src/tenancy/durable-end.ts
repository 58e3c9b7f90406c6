import type { ServerResponse } from 'node:http';

/** One held response: plain data, no closures (see `DurableEnds`). */
interface Hold {
  id: string;
  res: ServerResponse;
  /** The response's own `end`, bound to it. */
  end: (...a: unknown[]) => ServerResponse;
  /** The arguments of the `end()` call being held, once the router has made it. */
  pending?: unknown[];
  /** When that call was made (performance.now()). */
  heldAt: number;
  recorded: boolean;
  timer?: NodeJS.Timeout;
  owner: DurableEnds;
}

const HOLD = Symbol('llmgw.durableEnd');
type HeldResponse = ServerResponse & { [HOLD]?: Hold };

/** Stands in for `res.end` while the response is held: one function for every response. */
function heldEnd(this: HeldResponse, ...args: unknown[]): ServerResponse {
  const h = this[HOLD]!;
  if (h.recorded || h.pending) return h.end(...args);
  h.pending = args;
  h.heldAt = performance.now();
  // Never hold a response forever if no record comes (e.g. a handler path that records nothing).
  h.timer = setTimeout(onHoldTimeout, h.owner.maxHoldMs, h);
  h.timer.unref?.();
  return this;
}

function onHoldTimeout(h: Hold): void {
  if (!h.recorded) h.owner.onTimeout();
  h.owner.releaseHold(h);
}

function onResponseClose(this: HeldResponse): void {
  const h = this[HOLD];
  if (h) h.owner.drop(h);
}

/**
 * Holds the final `end()` of a client response until that request's usage
 * record is in the ledger, so a router killed at any instant never leaves a
 * completed response without its record. The router writes usage after the
 * response ends; this bridges that order without changing the router: the
 * request id is fixed before the handler runs (it reuses x-request-id), and
 * `release(id)` lets the held end through once the append is acknowledged.
 * Ids a client repeats on concurrent requests are released in arrival order.
 *
 * A hold is plain data reached through a symbol on the response, and the
 * functions put on the response are shared by every response; holds are
 * found by id in a null-prototype object, not a `Map`. Per-request closures
 * stored on the response, or a long-lived `Map` that gains and loses one key
 * per request, made V8 keep every held request alive through young-generation
 * GCs until the next full GC (docs/performance.md, "Why every request
 * outlived its scavenges").
 */
export class DurableEnds {
  private readonly held: Record<string, Hold[] | undefined> = Object.create(null);

  /**
   * @param maxHoldMs longest a finished response waits for its record
   * @param onTimeout called when a hold ends by its timer, not by the record (the record then
   *   sits only in router memory until the append is acknowledged)
   * @param onWaited called with how long (ms) each response whose `end()` was held waited for it
   */
  constructor(
    readonly maxHoldMs = 5_000,
    readonly onTimeout: () => void = () => {},
    readonly onWaited: (ms: number) => void = () => {},
  ) {}

  /** Forgets a hold (its response closed, or it was released). */
  drop(h: Hold): void {
    const list = this.held[h.id];
    if (!list) return;
    const i = list.indexOf(h);
    if (i >= 0) list.splice(i, 1);
    if (!list.length) delete this.held[h.id];
  }

  /** Lets a held end through (once). */
  releaseHold(h: Hold): void {
    if (h.recorded) return;
    h.recorded = true;
    this.drop(h);
    if (h.timer) clearTimeout(h.timer);
    const res = h.res as HeldResponse;
    res.end = h.end as ServerResponse['end'];
    res[HOLD] = undefined;
    if (h.pending) {
      this.onWaited(performance.now() - h.heldAt);
      h.end(...h.pending);
    }
  }

  /** Wraps `res.end` for request `id`. */
  track(id: string, res: ServerResponse): void {
    const r = res as HeldResponse;
    const h: Hold = { id, res, end: res.end.bind(res) as Hold['end'], recorded: false, heldAt: 0, owner: this };
    const list = this.held[id];
    if (list) list.push(h);
    else this.held[id] = [h];
    r[HOLD] = h;
    r.end = heldEnd as ServerResponse['end'];
    res.once('close', onResponseClose);
  }

  release(id: string): void {
    const h = this.held[id]?.[0];
    if (h) this.releaseHold(h);
  }

  /** Requests currently tracked. */
  get size(): number {
    let n = 0;
    for (const id in this.held) n += this.held[id]!.length;
    return n;
  }
}
