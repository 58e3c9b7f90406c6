import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './ports';
import { waitUntil } from './wait';

/** A redis-server of the test's own, on a free port, to stop and start again (outage tests). */
export interface TestRedisServer {
  readonly port: number;
  readonly url: string;
  /** Kills the server (SIGKILL: an outage, not a shutdown) and waits for it to be gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it accepts connections. */
  start(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Starts `redis-server --port N --save ''` (nothing on disk) on a free port.
 * Needs redis-server on PATH (it is on the CI machine and in the dev image).
 */
export async function startRedisServer(): Promise<TestRedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const run = async () => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    child = c;
    let exited = false;
    c.once('exit', () => (exited = true));
    await waitUntil(async () => exited || (await accepts(port)), `redis-server on port ${port}`);
    if (exited) throw new Error(`redis-server on port ${port} exited at start`);
  };
  await run();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      });
    },
    start: run,
  };
}
