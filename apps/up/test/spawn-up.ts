import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortRange, waitUntil } from '@llmgw/testing';
import { FLEET_NODES } from '../src/main';

/** The repo root and its `llmgw` executable (`npm start` is `node bin/llmgw.cjs up`). */
export const ROOT = join(__dirname, '../../..');
export const LLMGW = join(ROOT, 'bin/llmgw.cjs');
const ENV: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', LLMGW_QUIET_BUILD: '1' };

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * `llmgw up` as a real process in its own process group, on free ports, with its data dir at
 * `<fresh tmp dir>/.llmgw` so that `llmgw ctl` run from that tmp dir finds `.llmgw/ctl.yaml`
 * as it would from a clone's directory.
 */
export class UpProcess {
  readonly dir = mkdtempSync(join(tmpdir(), 'llmgw-up-'));
  readonly dataDir = join(this.dir, '.llmgw');
  output = '';
  private proc?: ChildProcess;
  exited!: Promise<Exit>;

  async start(...args: string[]): Promise<void> {
    mkdirSync(this.dataDir);
    const [low, high] = await freePortRange(100);
    this.proc = spawn(
      process.execPath,
      [
        LLMGW,
        'up',
        '--port',
        '0',
        '--admin-port',
        '0',
        '--accounting-port',
        '0',
        '--admission-port',
        '0',
        '--control-port',
        '0',
        '--engine-ports',
        `${low}-${high}`,
        '--data-dir',
        this.dataDir,
        '--decode-tps',
        '500',
        ...args,
      ],
      { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: ENV },
    );
    this.proc.stdout!.on('data', (c: Buffer) => (this.output += c.toString()));
    this.proc.stderr!.on('data', (c: Buffer) => (this.output += c.toString()));
    this.exited = new Promise((resolve) => this.proc!.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.proc!.pid!;
  }

  /** The first match of `re` in the output; rejects if up exits first or `ms` passes. */
  async match(re: RegExp, ms: number): Promise<RegExpMatchArray> {
    let m: RegExpMatchArray | null = null;
    await waitUntil(() => !!(m = re.exec(this.output)) || this.proc!.exitCode !== null, `${re} from llmgw up`, { timeoutMs: ms, everyMs: 50 }).catch((e) => {
      throw new Error(`${(e as Error).message}\n${this.output}`);
    });
    if (!m) throw new Error(`llmgw up exited (${this.proc!.exitCode}) before printing ${re}:\n${this.output}`);
    return m;
  }

  /** `llmgw ctl …` as a user runs it, from the directory holding .llmgw, with no address flags. */
  ctl(...args: string[]): { status: number | null; stdout: string; stderr: string } {
    const env = { ...ENV };
    for (const k of ['LLMGW_ACCOUNTING_ADDR', 'LLMGW_CONTROL_ADDR', 'LLMGW_CTL_CONFIG']) delete env[k];
    const r = spawnSync(process.execPath, [LLMGW, 'ctl', ...args], { cwd: this.dir, encoding: 'utf8', env });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /**
   * Asks for an on-demand model until it serves: every answer before is 503 `model_loading` with
   * Retry-After, and `llmgw ctl replicas` then lists its replica ready.
   */
  async onDemandLoads(chat: (model: string) => Promise<Response>, model: string): Promise<void> {
    const answers: number[] = [];
    await waitUntil(
      async () => {
        const r = await chat(model);
        answers.push(r.status);
        if (r.status !== 200) {
          expect(r.status).toBe(503);
          expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
          expect(await r.text()).toContain('model_loading');
        } else await r.text();
        return r.status === 200;
      },
      `${model} to serve`,
      { timeoutMs: 60_000, everyMs: 200 },
    );
    expect(answers.at(-1)).toBe(200);
    expect(ok(this.ctl('replicas'))).toMatch(new RegExp(`${model}\\s.*ready`));
  }

  /** Adoption records the agents keep per running engine. */
  engineRecords(): string[] {
    return FLEET_NODES.flatMap((n) => {
      const d = join(this.dataDir, 'fleet', n.id, 'shards');
      return existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.json')) : [];
    });
  }

  /** SIGINT to the group (a terminal's Ctrl-C); the exit, or rejects after `ms`. */
  async interrupt(ms: number): Promise<Exit> {
    process.kill(-this.pid, 'SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const e = await Promise.race([this.exited, new Promise<'still running'>((r) => (timer = setTimeout(() => r('still running'), ms)))]);
    clearTimeout(timer);
    if (e === 'still running') throw new Error(`llmgw up still running ${ms} ms after SIGINT:\n${this.output}`);
    return e;
  }

  /** Kills whatever is left of the group and removes the dirs. */
  cleanup(): void {
    const p = this.proc;
    if (p?.pid && p.exitCode === null && p.signalCode === null) {
      try {
        process.kill(-p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Checks `llmgw ctl` ran cleanly and returns its output. */
export function ok(r: { status: number | null; stdout: string; stderr: string }): string {
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  return r.stdout;
}
