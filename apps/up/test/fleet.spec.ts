import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePortRange, waitUntil } from '@llmgw/testing';
import { FLEET_NODES, fleetKeyPrefix, STOP_DEADLINE_MS } from '../src/main';

// `llmgw up --fleet` as a real process: inventory, the placement-scheduler and two fake-GPU
// node-agents in it, sim-engine processes placed by the scheduler, routers reading Redis.
const root = join(__dirname, '../../..');
const LLMGW = join(root, 'bin/llmgw.cjs');

let proc: ChildProcess;
let dataDir: string;
let output = '';
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
let routerUrl: string;
const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });

async function outputMatch(re: RegExp, ms: number): Promise<RegExpMatchArray> {
  let m: RegExpMatchArray | null = null;
  await waitUntil(() => !!(m = re.exec(output)) || proc.exitCode !== null, `${re} from llmgw up`, { timeoutMs: ms, everyMs: 50 }).catch((e) => {
    throw new Error(`${(e as Error).message}\n${output}`);
  });
  if (!m) throw new Error(`llmgw up exited (${proc.exitCode}) before printing ${re}:\n${output}`);
  return m;
}

const chat = (model: string) =>
  fetch(`${routerUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 4 }),
  });

const ctl = (...args: string[]) => {
  // Over mTLS with the operator certificate, the address and files from the ctl.yaml up wrote.
  const r = spawnSync(process.execPath, [LLMGW, 'ctl', '--config', join(dataDir, 'ctl.yaml'), ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, LLMGW_QUIET_BUILD: '1' } });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  return r.stdout;
};

/** Adoption records the agents keep per running engine. */
const engineRecords = () =>
  FLEET_NODES.flatMap((n) => {
    const d = join(dataDir, 'fleet', n.id, 'shards');
    return existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.json')) : [];
  });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'llmgw-up-fleet-'));
  const [low, high] = await freePortRange(100);
  proc = spawn(
    process.execPath,
    [LLMGW, 'up', '--fleet', '--redis-url', 'redis://127.0.0.1:6379', '--no-auth', '--port', '0', '--admin-port', '0', '--accounting-port', '0', '--admission-port', '0',
      '--control-port', '0', '--engine-ports', `${low}-${high}`, '--data-dir', dataDir, '--decode-tps', '500'],
    { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', LLMGW_QUIET_BUILD: '1' } },
  );
  proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
});

afterAll(async () => {
  if (proc.pid && proc.exitCode === null && proc.signalCode === null) {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const keys = await redis.keys(`${fleetKeyPrefix(dataDir)}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('llmgw up --fleet', () => {
  it('starts inventory, the scheduler and two fake-GPU agents; the always-on demo model is placed and serves', async () => {
    await outputMatch(/llmgw is up/, 150_000);
    routerUrl = (await outputMatch(/router 1\s+(http:\/\/\S+)\/v1/, 1_000))[1];
    expect(output).toContain(`llmgw ctl --config ${join(dataDir, 'ctl.yaml')} replicas`);
    expect(output).toMatch(/node-agent\s+up-gpu-a: 4xh100-80g,fabric=fab-a/);
    expect(output).toMatch(/node-agent\s+up-gpu-b: 4xh100-80g,fabric=fab-b/);
    const res = await chat('demo');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe('demo');
    expect(ctl('nodes')).toMatch(/up-gpu-a[\s\S]*fab-a[\s\S]*up-gpu-b[\s\S]*fab-b/);
    expect(ctl('replicas')).toMatch(/demo\s.*ready/);
    expect(ctl('explain-placement', 'demo-lazy')).toContain('demo-lazy');
  }, 180_000);

  it('loads the on-demand model when asked: 503 model_loading while it loads, then it serves', async () => {
    const answers: number[] = [];
    await waitUntil(async () => {
      const r = await chat('demo-lazy');
      answers.push(r.status);
      if (r.status !== 200) {
        expect(r.status).toBe(503);
        expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await r.text()).toContain('model_loading');
      } else await r.text();
      return r.status === 200;
    }, 'demo-lazy to serve', { timeoutMs: 60_000, everyMs: 200 });
    expect(answers.at(-1)).toBe(200);
    expect(ctl('replicas')).toMatch(/demo-lazy\s.*ready/);
  }, 90_000);

  it('SIGINT stops everything, the engine processes too, with status 0', async () => {
    expect(engineRecords().length).toBe(2);
    process.kill(-proc.pid!, 'SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const e = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r('still running'), STOP_DEADLINE_MS + 25_000)))]);
    clearTimeout(timer);
    expect(e).toEqual({ code: 0, signal: null });
    expect(output).toMatch(/SIGINT: stopping…\nstopped\n/);
    // Every engine was stopped (an agent drops an engine's record once it is stopped).
    expect(engineRecords()).toEqual([]);
  }, 60_000);

  it('refuses --fleet without Redis, before starting anything', () => {
    const r = spawnSync(process.execPath, [LLMGW, 'up', '--fleet', '--data-dir', dataDir], { cwd: root, encoding: 'utf8', env: { ...process.env, LLMGW_QUIET_BUILD: '1' } });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--fleet needs --redis-url');
  });
});
