import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STOP_DEADLINE_MS } from '../src/main';

// `llmgw up` run the way the README runs it (`npm start` is `node bin/llmgw.cjs up`),
// as a real process in its own process group, with free ports and a fresh data dir.
const root = join(__dirname, '../../..');

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

let proc: ChildProcess | undefined;
let dataDir: string;
let output = '';
let exited: Promise<Exit>;

/** Resolves once `output` matches `re`; rejects if the process exits first or `ms` passes. */
function waitForOutput(re: RegExp, ms: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      proc!.stdout!.off('data', check);
      f();
    };
    const check = () => {
      const m = re.exec(output);
      if (m) settle(() => resolve(m));
    };
    const timer = setTimeout(() => settle(() => reject(new Error(`no ${re} from llmgw up within ${ms} ms:\n${output}`))), ms);
    void exited.then((e) => settle(() => reject(new Error(`llmgw up exited (${e.code ?? e.signal}) before printing ${re}:\n${output}`))));
    proc!.stdout!.on('data', check);
    check();
  });
}

/** Resolves with the exit, or rejects after `ms`. */
function waitForExit(ms: number): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`llmgw up still running ${ms} ms after SIGINT:\n${output}`)), ms);
    void exited.then((e) => {
      clearTimeout(timer);
      resolve(e);
    });
  });
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'llmgw-up-'));
  proc = spawn(
    process.execPath,
    ['bin/llmgw.cjs', 'up', '--port', '0', '--admin-port', '0', '--accounting-port', '0', '--admission-port', '0', '--data-dir', dataDir, '--decode-tps', '500'],
    { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } },
  );
  proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  exited = new Promise((resolve) => proc!.once('exit', (code, signal) => resolve({ code, signal })));
});

afterAll(() => {
  // The whole group, in case the test failed before `up` stopped.
  if (proc?.pid && proc.exitCode === null && proc.signalCode === null) {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('llmgw up, as the README runs it', () => {
  let routerUrl: string;
  let key: string;

  it('starts and prints a router URL and a demo API key', async () => {
    await waitForOutput(/llmgw is up/, 150_000);
    routerUrl = (await waitForOutput(/router 1\s+(http:\/\/\S+)\/v1/, 1_000))[1];
    key = (await waitForOutput(/demo API key (sk-llmgw-\S+)/, 1_000))[1];
    expect(routerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output).toMatch(/admission\s+\S+ \(gRPC\)/);
    expect(output).toMatch(/accounting\s+\S+ \(gRPC\)/);
    expect(output).toMatch(/engines\s+2 × sim-engine/);
  }, 180_000);

  it('serves a request with that key, and refuses one without', async () => {
    const body = JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 8 });
    const headers = { 'content-type': 'application/json' };
    const ok = await fetch(`${routerUrl}/v1/chat/completions`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${key}` }, body });
    const json = (await ok.json()) as any;
    expect(ok.status).toBe(200);
    expect(json.choices[0].message.content.length).toBeGreaterThan(0);
    expect(json.usage.completion_tokens).toBeGreaterThan(0);
    const refused = await fetch(`${routerUrl}/v1/chat/completions`, { method: 'POST', headers, body });
    expect(refused.status).toBe(401);
  });

  it('runs every gRPC link over mTLS with its own CA, and `llmgw ctl` reaches accounting with the ctl.yaml it wrote', async () => {
    for (const k of ['ca.key', 'accounting.key', 'router.key', 'operator.key']) expect(statSync(join(dataDir, 'tls', k)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, 'ctl.yaml'), 'utf8')).toMatch(/tls:\n\s+ca: tls\/ca\.crt\n\s+cert: tls\/operator\.crt/);
    const run = (args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) =>
        execFile(process.execPath, ['bin/llmgw.cjs', 'ctl', ...args], { cwd: root, env: { ...process.env, LLMGW_CTL_CONFIG: '' } }, (e, out, err) => resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, out, err })),
      );
    const ok = await run(['--config', join(dataDir, 'ctl.yaml'), 'org', 'list', '--json']);
    expect(ok.err).not.toMatch(/llmgw ctl:/);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'demo' })]));
    // Without the operator certificate the admin API is not reachable.
    const accounting = /accounting:\s*(\S+)/.exec(readFileSync(join(dataDir, 'ctl.yaml'), 'utf8'))![1];
    const refused = await run(['--accounting', accounting, '--timeout', '1500', 'org', 'list']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/llmgw ctl: cannot reach accounting/);
  }, 90_000);

  it(`stops everything on SIGINT with exit status 0 (up exits 1 itself past ${STOP_DEADLINE_MS / 1000} s)`, async () => {
    // Ctrl-C in a terminal signals the whole foreground group.
    process.kill(-proc!.pid!, 'SIGINT');
    // up enforces its own stop deadline (exit 1 past it); this wait only adds slack for a busy machine.
    const e = await waitForExit(STOP_DEADLINE_MS + 25_000);
    expect(e).toEqual({ code: 0, signal: null });
    expect(output).toMatch(/SIGINT: stopping…\nstopped\n/);
    expect(output).not.toMatch(/did not stop within/);
    // Nothing of the stack is left listening.
    await expect(fetch(`${routerUrl}/v1/models`)).rejects.toThrow();
  });
});
