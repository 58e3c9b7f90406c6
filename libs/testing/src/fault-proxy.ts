import net, { type AddressInfo } from 'node:net';

/**
 * A fault-injecting TCP proxy for tests: it listens on 127.0.0.1:0, forwards
 * every connection to one target, and misbehaves on demand. The mode can be
 * changed at any time and applies to the connections already open as well as
 * to new ones (a network fault does not wait for a new connection).
 *
 * - `pass`: bytes go through as they come.
 * - `latency`: every chunk, either way, is delivered `ms` after it arrived (order kept).
 * - `bandwidth`: each direction of each connection carries at most `bytesPerSecond`.
 * - `reset`: the response direction delivers `afterBytes` more bytes on each connection
 *   (counted from when the mode was set, or from the connection's start), then the client
 *   socket is reset (TCP RST) and the target connection closed. `afterBytes: 0` resets on
 *   the first response byte, before any of it reaches the client. The request is forwarded.
 *   (A client that has not read the last bytes yet when the reset lands may see it as an end
 *   of stream: Linux reports the reset only when nothing is left to read.)
 * - `blackhole`: connections are accepted and read, but nothing is forwarded either way and
 *   nothing is answered; new connections never reach the target.
 * - `half_open`: requests are forwarded (and a client's close reaches the target), responses
 *   are read and dropped: the target works, the client never hears back.
 * - `refuse`: the listener is closed (new connections are refused) and open connections are
 *   reset, as when the process behind a port dies. Leaving `refuse` listens on the same port again.
 *
 * A connection that lost bytes to `blackhole` or `half_open` can no longer carry a valid
 * protocol stream; it is reset when the mode changes to one that forwards again.
 */
export type FaultMode =
  | { kind: 'pass' }
  | { kind: 'latency'; ms: number }
  | { kind: 'bandwidth'; bytesPerSecond: number }
  | { kind: 'reset'; afterBytes: number }
  | { kind: 'blackhole' }
  | { kind: 'half_open' }
  | { kind: 'refuse' };

export interface FaultProxyStats {
  /** Connections accepted since the start. */
  accepted: number;
  /** Client connections open now. */
  open: number;
  /** Bytes delivered to the target (requests) and to clients (responses). */
  bytesUp: number;
  bytesDown: number;
  /** Bytes read and dropped (blackhole, half-open), either way. */
  bytesDropped: number;
  /** Client sockets reset by the `reset` mode. */
  resets: number;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: the address to give a client in place of the target's. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly mode: FaultMode;
  /** Switches the mode; resolves once it is in force (the listener closed or listening again). */
  set(mode: FaultMode): Promise<void>;
  stats(): FaultProxyStats;
  /** Closes the listener and every connection. */
  close(): Promise<void>;
}

export interface FaultProxyOptions {
  /** Where to forward: `host:port` or a URL (`http://127.0.0.1:8000`). */
  target: string;
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** Listen port; default 0 (any free one). */
  port?: number;
  mode?: FaultMode;
}

/** Parses `host:port` or a URL into where to connect. */
export function parseTarget(target: string): { host: string; port: number } {
  const u = new URL(target.includes('://') ? target : `tcp://${target}`);
  const port = Number(u.port);
  if (!u.hostname || !Number.isInteger(port) || port <= 0) throw new Error(`fault proxy: target "${target}" has no host and port`);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port };
}

/** Largest piece written at once under a bandwidth limit: about 20 pieces a second. */
const pieceSize = (bytesPerSecond: number): number => Math.max(1, Math.floor(bytesPerSecond / 20));

/**
 * One direction of one connection: chunks queue with the time they may be
 * written, and are written in order, each no earlier than its time.
 */
class Lane {
  private readonly queue: Array<{ buf: Buffer; due: number; written?: () => void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private nextFree = 0;
  private waitingDrain = false;
  private ending = false;
  /** Bytes handed to the destination. */
  delivered = 0;

  constructor(
    private readonly dest: () => net.Socket | undefined,
    private readonly source: () => net.Socket | undefined,
    private readonly onDelivered: (n: number) => void,
  ) {}

  /** Queues `buf` under `mode`'s shaping; `written` is called once the socket has taken its last byte. */
  push(buf: Buffer, mode: FaultMode, written?: () => void): void {
    const now = Date.now();
    if (mode.kind === 'bandwidth' && mode.bytesPerSecond > 0) {
      const piece = pieceSize(mode.bytesPerSecond);
      for (let off = 0; off < buf.length; off += piece) {
        const part = buf.subarray(off, off + piece);
        const due = Math.max(now, this.nextFree);
        this.nextFree = due + (part.length / mode.bytesPerSecond) * 1000;
        this.queue.push({ buf: part, due, written: off + piece >= buf.length ? written : undefined });
      }
    } else {
      // Order is kept: nothing overtakes a chunk still waiting out an earlier latency.
      const due = Math.max(mode.kind === 'latency' ? now + mode.ms : now, this.nextFree);
      this.nextFree = due;
      this.queue.push({ buf, due, written });
    }
    // Backpressure: stop reading while much is queued.
    if (this.queued() > 1 << 20) this.source()?.pause();
    this.flush();
  }

  /** Ends the destination once everything queued is written. */
  end(): void {
    this.ending = true;
    this.flush();
  }

  /** Drops what is queued (the connection is going away). */
  clear(): void {
    this.queue.length = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private queued(): number {
    let n = 0;
    for (const q of this.queue) n += q.buf.length;
    return n;
  }

  /** Writes what is due; called on every push, timer, drain and when the destination connects. */
  flush(): void {
    if (this.timer || this.waitingDrain) return;
    const dest = this.dest();
    if (!dest || dest.destroyed) return;
    const now = Date.now();
    while (this.queue.length > 0) {
      const head = this.queue[0];
      if (head.due > now) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.flush();
        }, head.due - now);
        return;
      }
      this.queue.shift();
      this.delivered += head.buf.length;
      this.onDelivered(head.buf.length);
      if (!dest.write(head.buf, head.written)) {
        this.waitingDrain = true;
        dest.once('drain', () => {
          this.waitingDrain = false;
          this.flush();
        });
        return;
      }
    }
    this.source()?.resume();
    if (this.ending && !dest.writableEnded) dest.end();
  }
}

interface Conn {
  client: net.Socket;
  upstream?: net.Socket;
  up: Lane;
  down: Lane;
  /** Response bytes delivered since the current mode was set (for `reset`). */
  downSinceMode: number;
  /** Bytes were dropped: the stream is no longer valid. */
  tainted: boolean;
  closed: boolean;
}

const forwards = (m: FaultMode): boolean => m.kind !== 'blackhole' && m.kind !== 'half_open' && m.kind !== 'refuse';

/** Starts a fault proxy in front of `target`; it begins in `pass` mode unless told otherwise. */
export async function startFaultProxy(opts: FaultProxyOptions): Promise<FaultProxy> {
  const target = parseTarget(opts.target);
  const host = opts.host ?? '127.0.0.1';
  let mode: FaultMode = { kind: 'pass' };
  const conns = new Set<Conn>();
  const stats: FaultProxyStats = { accepted: 0, open: 0, bytesUp: 0, bytesDown: 0, bytesDropped: 0, resets: 0 };
  let listening = false;
  let closed = false;

  const destroy = (c: Conn, reset: boolean): void => {
    if (c.closed) return;
    c.closed = true;
    c.up.clear();
    c.down.clear();
    if (reset && !c.client.destroyed) c.client.resetAndDestroy();
    else c.client.destroy();
    c.upstream?.destroy();
  };

  const connectUpstream = (c: Conn): void => {
    const u = net.connect({ port: target.port, host: target.host, allowHalfOpen: true });
    c.upstream = u;
    u.setNoDelay(true);
    u.on('connect', () => c.up.flush());
    u.on('data', (b: Buffer) => onResponse(c, b));
    // The target closed its side: pass the FIN on, unless responses are being withheld.
    u.on('end', () => {
      if (forwards(mode)) c.down.end();
    });
    // The target went away abruptly (refused, reset): the client sees a reset, as it would without the proxy.
    u.on('error', () => destroy(c, true));
  };

  const onRequest = (c: Conn, b: Buffer): void => {
    if (mode.kind === 'blackhole') {
      c.tainted = true;
      stats.bytesDropped += b.length;
      return;
    }
    if (!c.upstream) connectUpstream(c);
    c.up.push(b, mode);
  };

  const onResponse = (c: Conn, b: Buffer): void => {
    if (c.closed) return;
    if (mode.kind === 'blackhole' || mode.kind === 'half_open') {
      c.tainted = true;
      stats.bytesDropped += b.length;
      return;
    }
    if (mode.kind === 'reset') {
      const room = mode.afterBytes - c.downSinceMode;
      if (room > b.length) {
        c.downSinceMode += b.length;
        c.down.push(b, mode);
        return;
      }
      stats.resets++;
      c.upstream?.removeAllListeners('data');
      c.upstream?.destroy();
      if (room <= 0) return destroy(c, true);
      // The last allowed bytes leave first (the socket has taken them), then the reset.
      c.downSinceMode += room;
      c.down.push(b.subarray(0, room), mode, () => setImmediate(() => destroy(c, true)));
      return;
    }
    c.downSinceMode += b.length;
    c.down.push(b, mode);
  };

  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    stats.accepted++;
    stats.open++;
    client.setNoDelay(true);
    const c: Conn = {
      client,
      up: new Lane(
        () => (c.upstream && !c.upstream.connecting ? c.upstream : undefined),
        () => client,
        (n) => (stats.bytesUp += n),
      ),
      down: new Lane(
        () => client,
        () => c.upstream,
        (n) => (stats.bytesDown += n),
      ),
      downSinceMode: 0,
      tainted: false,
      closed: false,
    };
    conns.add(c);
    if (mode.kind !== 'blackhole') connectUpstream(c);
    client.on('data', (b: Buffer) => onRequest(c, b));
    // The client closed its side: pass it on (the target sees the disconnect, as it would directly).
    client.on('end', () => {
      if (c.upstream) c.up.end();
    });
    client.on('error', () => destroy(c, false));
    client.on('close', () => {
      stats.open--;
      conns.delete(c);
      destroy(c, false);
    });
  });

  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        listening = true;
        resolve((server.address() as AddressInfo).port);
      });
    });
  const unlisten = (): Promise<void> =>
    new Promise((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      for (const c of conns) destroy(c, true);
    });

  const port = await listen(opts.port ?? 0);

  const proxy: FaultProxy = {
    url: `http://${host}:${port}`,
    host,
    port,
    get mode() {
      return mode;
    },
    async set(next: FaultMode) {
      if (closed) throw new Error('fault proxy: closed');
      const prev = mode;
      mode = next;
      for (const c of conns) c.downSinceMode = 0;
      if (next.kind === 'refuse') return unlisten();
      if (forwards(next)) {
        // Connections that lost bytes cannot carry the protocol on: they go, as after a partition.
        for (const c of conns) if (c.tainted) destroy(c, true);
        for (const c of conns) if (!c.upstream && !c.closed) connectUpstream(c);
      }
      if (prev.kind === 'refuse' || !listening) await listen(port);
    },
    stats: () => ({ ...stats }),
    async close() {
      if (closed) return;
      closed = true;
      await unlisten();
    },
  };
  if (opts.mode) await proxy.set(opts.mode);
  return proxy;
}
