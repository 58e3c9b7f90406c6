import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * Spawning any llmgw role as a real child process (`node bin/llmgw.cjs <role> …`),
 * for integration tests and benchmarks.
 *
 * THE CONVENTION every server role follows: once it listens, it logs exactly
 * one pino JSON line on stdout with `"msg":"listening"` and
 * `"url":"http://127.0.0.1:PORT"`; a role with several ports adds
 * `"urls":{"<name>":"http://…",…}` (url is then its main one). Roles are
 * always started with `--port 0` (or their equivalent) so tests never bind
 * fixed ports; the harness reads the bound port back from that line.
 */

export interface SpawnRoleOptions {
  /** Extra environment (merged over process.env). */
  env?: Record<string, string | undefined>;
  /** Node's own flags for the child (before bin/llmgw.cjs), as a systemd unit's ExecStart gives them; any V8 flag, unlike NODE_OPTIONS. */
  nodeArgs?: string[];
  /** How long to wait for the "listening" line; default 120 s (a start, a bundle rebuild included, is slow on a loaded 2-core machine). */
  timeoutMs?: number;
  /** Repository root (where bin/llmgw.cjs lives); found from this file by default. */
  repoRoot?: string;
  /** Echo the child's stdout/stderr to this process's stderr (debugging). */
  echo?: boolean;
  /**
   * Keep collecting output lines after the role is ready (default true).
   * Benchmarks pass false: the child's output is then drained unparsed, so a
   * chatty role (a log line per request) does not load the measuring process.
   */
  keepOutput?: boolean;
}

export interface SpawnedRole {
  url: string;
  /** Every URL from the listening line (`urls`), with `main` = url. */
  urls: Record<string, string>;
  port: number;
  pid: number;
  proc: ChildProcess;
  /** Output lines so far (stdout and stderr, in arrival order). */
  output(): string[];
  /** Sends `signal` (default SIGTERM), waits for exit (SIGKILL after 5 s); resolves to the exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
}

/** The directory holding bin/llmgw.cjs, searched upwards from `from`. */
export function findRepoRoot(from: string = __dirname): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'bin', 'llmgw.cjs'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`bin/llmgw.cjs not found above ${from}`);
    dir = up;
  }
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

/**
 * The Node flags production starts the router with: those of deploy/systemd/llmgw-router.service's
 * ExecStart before bin/llmgw.cjs (V8 heap sizing, docs/performance.md, "Memory per stream"). The
 * benches run their routers with them; the compose file's routers must set the same.
 */
export function routerUnitFlags(root: string = findRepoRoot()): string[] {
  const exec = /^ExecStart=\S+ (.*?)\S*\/bin\/llmgw\.cjs router/m.exec(routerUnit(root));
  return (exec?.[1] ?? '').split(' ').filter((f) => f.startsWith('--'));
}

/**
 * The environment production starts the router with: the unit's `Environment=NAME=value` lines
 * (glibc's malloc arenas, docs/performance.md, "Native memory: two malloc arenas"). The benches give
 * it to their routers; the compose file's routers must set the same.
 */
export function routerUnitEnv(root: string = findRepoRoot()): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, name, value] of routerUnit(root).matchAll(/^Environment=([A-Za-z_][A-Za-z0-9_]*)=(\S*)\s*$/gm)) env[name] = value;
  return env;
}

function routerUnit(root: string): string {
  return readFileSync(join(root, 'deploy', 'systemd', 'llmgw-router.service'), 'utf8');
}

/** Spawns `llmgw <role> ...args` and resolves once the role logs its "listening" line. */
export function spawnRole(role: string, args: string[] = [], opts: SpawnRoleOptions = {}): Promise<SpawnedRole> {
  const root = opts.repoRoot ?? findRepoRoot();
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), join(root, 'bin', 'llmgw.cjs'), role, ...args], {
    cwd: root,
    // Quiet bundle rebuilds: a spawned role's output is its JSON log lines, nothing else.
    env: { LLMGW_QUIET_BUILD: '1', ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  const lines: string[] = [];
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<number | NodeJS.Signals | null>((res) => {
    proc.once('exit', (code, signal) => {
      exited = { code, signal };
      live.delete(proc);
      res(signal ?? code);
    });
  });

  return new Promise<SpawnedRole>((resolvePromise, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      proc.kill('SIGKILL');
      reject(new Error(`llmgw ${role}: no "listening" line within ${opts.timeoutMs ?? 120_000} ms\n${lines.slice(-20).join('\n')}`));
    }, opts.timeoutMs ?? 120_000);

    const onLine = (line: string): void => {
      lines.push(line);
      if (opts.echo) process.stderr.write(`[${role}] ${line}\n`);
      if (settled || !line.startsWith('{')) return;
      let rec: { msg?: unknown; url?: unknown; urls?: unknown };
      try {
        rec = JSON.parse(line);
      } catch {
        return;
      }
      if (rec.msg !== 'listening' || typeof rec.url !== 'string') return;
      settled = true;
      clearTimeout(timer);
      if (opts.keepOutput === false) {
        for (const rl of readers) rl.close();
        proc.stdout!.resume();
        proc.stderr!.resume();
      }
      const url = rec.url;
      const urls: Record<string, string> = { main: url };
      if (rec.urls && typeof rec.urls === 'object') Object.assign(urls, rec.urls);
      resolvePromise({
        url,
        urls,
        port: Number(new URL(url).port),
        pid: proc.pid!,
        proc,
        output: () => lines.slice(),
        async stop(signal: NodeJS.Signals = 'SIGTERM') {
          if (exited) return exited.signal ?? exited.code;
          proc.kill(signal);
          const killer = setTimeout(() => proc.kill('SIGKILL'), 5000);
          const r = await exitPromise;
          clearTimeout(killer);
          return r;
        },
      });
    };
    const readers = [createInterface({ input: proc.stdout! }), createInterface({ input: proc.stderr! })];
    for (const rl of readers) rl.on('line', onLine);
    void exitPromise.then((r) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`llmgw ${role} exited (${r}) before listening\n${lines.slice(-20).join('\n')}`));
    });
  });
}
