import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitUntil } from '@llmgw/testing';
import pg from 'pg';

const run = promisify(execFile);

/** /proc/<pid>/<name>, undefined once the process is gone. */
function procFile(pid: number, name: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Whether SIGTERM is pending for a process (sent to it or its group), or it is gone. */
function termPending(pid: number): boolean {
  const status = procFile(pid, 'status');
  if (status === undefined) return true;
  let mask = 0n;
  for (const m of status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)) mask |= BigInt(`0x${m[1]}`);
  return (mask & (1n << 14n)) !== 0n; // bit n-1 for signal n; SIGTERM is 15
}

/**
 * A PostgreSQL server of the test's own (its own data directory and port) to
 * hang, refuse and stop (outage tests). As root the server runs as the
 * `postgres` user, which PostgreSQL requires.
 */
export interface PrivatePostgres {
  readonly port: number;
  /** URL of the `postgres` database (trust auth). */
  readonly url: string;
  /** Starts the server (again) and waits until it accepts connections. */
  start(): Promise<void>;
  /** Fast shutdown (pg_ctl stop -m fast): new connections are refused. */
  stop(): Promise<void>;
  /** SIGSTOP the postmaster and every backend: connections stay open, nothing answers. */
  hang(): void;
  /** SIGCONT what hang() stopped. */
  resume(): void;
  /**
   * Fast shutdown of a hung server: the postmaster resumes first with SIGINT, and the client backends
   * only once its SIGTERM is pending for each of them, so none can still answer a query it was sent
   * while hung (one resumed first could, before the shutdown reached it).
   */
  stopWhileHung(): Promise<void>;
  /** The postmaster's pid (from postmaster.pid), undefined when not running. */
  pid(): number | undefined;
  /** Pids of the postmaster and its children. */
  pids(): number[];
  /** Stops the server if running and removes the data directory. */
  destroy(): Promise<void>;
}

function binDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0], 'bin') : undefined;
}

/** True when initdb/pg_ctl are installed (the test skips otherwise). */
export function havePostgresBinaries(): boolean {
  return binDir() !== undefined;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  if (!bin) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql/*/bin');
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-pg-'));
  const data = join(dir, 'data');
  let uid: number | undefined;
  let gid: number | undefined;
  if (root) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    uid = Number(id.stdout.trim());
    gid = Number(g.stdout.trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const exec = (file: string, args: string[]) => run(join(bin, file), args, root ? { uid, gid, env: { ...process.env, HOME: dir } } : {});
  await exec('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB -c max_connections=40`;
  const accepts = async () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await c.end().catch(() => {});
    }
  };
  let stopped: number[] = [];
  const pid = () => {
    try {
      return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  const pids = () => {
    const p = pid();
    if (!p) return [];
    const kids = spawnSync('pgrep', ['-P', String(p)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .map(Number);
    return [p, ...kids];
  };
  const self: PrivatePostgres = {
    port,
    url,
    async start() {
      await exec('pg_ctl', ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'log'), '-o', opts]);
      await waitUntil(accepts, `private postgres on port ${port}`, { timeoutMs: 30_000 });
    },
    async stop() {
      await exec('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '60']);
    },
    hang() {
      stopped = pids();
      for (const p of stopped) process.kill(p, 'SIGSTOP');
    },
    resume() {
      for (const p of stopped) {
        try {
          process.kill(p, 'SIGCONT');
        } catch {
          // gone already
        }
      }
      stopped = [];
    },
    async stopWhileHung() {
      const [postmaster, ...children] = stopped;
      if (postmaster === undefined) throw new Error('stopWhileHung: the server is not hung');
      const backends = children.filter((p) => /\(\d+\)|\[local\]/.test(procFile(p, 'cmdline') ?? ''));
      process.kill(postmaster, 'SIGINT');
      process.kill(postmaster, 'SIGCONT');
      await waitUntil(() => backends.every((p) => termPending(p)), 'the shutdown signal pending for every client backend', {
        timeoutMs: 30_000,
      });
      self.resume();
    },
    pid,
    pids,
    async destroy() {
      self.resume();
      if (pid()) await exec('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '30']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await self.start();
  return self;
}

/** What accounting's /readyz answered: its status, and while the database is out, why. */
export interface Readyz {
  status: number;
  database?: string;
  reason?: string;
}

/**
 * Accounting's /readyz, for outage tests. No wall-clock deadline is asserted (a busy machine may
 * answer late): the body's reason says what ended the wait, and "no answer within N ms" is the
 * ping's own timeout, so a hung database held /readyz no longer than `database_ping_timeout`.
 * The 30 s abort only turns a /readyz with no bound at all into a failure before the test's timeout.
 */
export async function readyz(adminUrl: string): Promise<Readyz> {
  const r = await fetch(`${adminUrl}/readyz`, { signal: AbortSignal.timeout(30_000) });
  const body = (await r.json().catch(() => ({}))) as { database?: string; reason?: string };
  return {
    status: r.status,
    ...(body.database === undefined ? {} : { database: body.database }),
    ...(body.reason === undefined ? {} : { reason: body.reason }),
  };
}

/** /readyz of a database that does not answer: 503, unreachable, ended by the ping's `timeoutMs`. */
export const hungReadyz = (timeoutMs: number): Readyz => ({
  status: 503,
  database: 'unreachable',
  reason: `database unavailable (no answer within ${timeoutMs} ms)`,
});
