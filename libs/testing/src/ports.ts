import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** True when `port` can be bound on 127.0.0.1 right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Ports this process has been given (by either function): never handed out twice, since a pick is free only until its user binds it. */
const handedOut = new Set<number>();

/**
 * A range of `size` consecutive ports, all free on 127.0.0.1 when checked,
 * below the kernel's ephemeral range, for processes that are handed a port
 * range rather than binding port 0 (the placement-scheduler's `port_range`,
 * `llmgw up --engine-ports`). Random start, so parallel suites rarely even
 * try the same one. Returns [low, high], inclusive.
 */
export async function freePortRange(size: number, opts: { min?: number; max?: number; random?: () => number } = {}): Promise<[number, number]> {
  const min = opts.min ?? 21_000;
  const max = opts.max ?? 32_000;
  const random = opts.random ?? Math.random;
  for (let attempt = 0; attempt < 50; attempt++) {
    const low = min + Math.floor(random() * (max - min - size));
    let ok = true;
    // Not a port this process was already given (free until its user binds it), then free now.
    for (let p = low; p < low + size && ok; p++) ok = !handedOut.has(p);
    for (let p = low; p < low + size && ok; p++) ok = await bindable(p);
    // Checked again after the awaits: a concurrent pick may have been given one of them meanwhile.
    for (let p = low; p < low + size && ok; p++) ok = !handedOut.has(p);
    if (ok) {
      for (let p = low; p < low + size; p++) handedOut.add(p);
      return [low, low + size - 1];
    }
  }
  throw new Error(`no ${size} consecutive free ports found between ${min} and ${max}`);
}

/**
 * A TCP port free right now on 127.0.0.1, for programs that cannot bind port 0
 * and report what they got (haproxy, nginx, an engine's fixed flag), and for
 * tests that bring a server up on an address later. Chosen below the kernel's
 * ephemeral range: a port the kernel hands out for port 0 is also what it
 * hands any outgoing connection as its source port, so between the pick and
 * the bind a connection from another suite running beside this one could take
 * it (seen as EADDRINUSE with two Node runtimes testing at once). Another test
 * may still pick the same port by chance; prefer port 0 wherever possible.
 */
export async function freePort(): Promise<number> {
  return (await freePortRange(1))[0];
}

/**
 * The listening TCP sockets on `port` (any address), read from the kernel's tables
 * (/proc/net/tcp and tcp6; state 0A is LISTEN), each with its accept queue: the
 * connections the kernel has completed that the process has not accepted yet (a
 * LISTEN socket's rx_queue). [] where /proc/net is not there.
 */
export function listeningSockets(port: number): Array<{ acceptQueue: number }> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const out: Array<{ acceptQueue: number }> = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 4 && f[1].endsWith(`:${hex}`) && f[3] === '0A') out.push({ acceptQueue: parseInt(f[4].split(':')[1], 16) });
    }
  }
  return out;
}
