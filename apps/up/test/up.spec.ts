import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { waitUntil } from '@llmgw/testing';
import { fleetKeyPrefix, STOP_DEADLINE_MS } from '../src/main';
import { ok, UpProcess } from './spawn-up';

// `llmgw up` run the way the README runs it (`npm start` is `node bin/llmgw.cjs up`), default mode, no
// Redis: inventory, the placement-scheduler and two fake-GPU node-agents in the process, the demo model
// served from replicas the scheduler placed (sim-engine processes the agents launched), and `llmgw ctl`
// working from the directory above the data dir with no flags.
const up = new UpProcess();
const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1, lazyConnect: true });

beforeAll(() => up.start());

afterAll(async () => {
  up.cleanup();
  redis.disconnect();
});

describe('llmgw up (default: the control plane, no Redis)', () => {
  let routerUrl: string;
  let key: string;
  const chat = (model: string, auth = true) =>
    fetch(`${routerUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 8 }),
    });

  it('starts inventory, two fake-GPU agents, the scheduler, admission, accounting and a router; prints a demo key', async () => {
    await up.match(/llmgw is up/, 150_000);
    routerUrl = (await up.match(/router 1\s+(http:\/\/\S+)\/v1/, 1_000))[1];
    key = (await up.match(/demo API key (sk-llmgw-\S+)/, 1_000))[1];
    expect(routerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(up.output).toMatch(/admission\s+\S+ \(gRPC\)/);
    expect(up.output).toMatch(/accounting\s+\S+ \(gRPC\)/);
    expect(up.output).toMatch(/inventory\s+\S+ \(gRPC\)/);
    expect(up.output).toMatch(/node-agent\s+up-gpu-a: 4xh100-80g,fabric=fab-a/);
    expect(up.output).toMatch(/node-agent\s+up-gpu-b: 4xh100-80g,fabric=fab-b/);
    expect(up.output).toMatch(/placement\s+\S+ \(ControlService, mTLS\).*shared state in process/);
    // Both demo replicas (--engines defaults to 2) were ready before the banner.
    expect(up.output).toMatch(/engines\s+sim-engines the placement-scheduler placed .*: demo-\S+ on up-gpu-\w, demo-\S+ on up-gpu-\w/);
  }, 180_000);

  it('serves the demo model from a replica the scheduler placed (x-llmgw-replica), with the key; refuses without', async () => {
    const res = await chat('demo');
    const json = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(json.choices[0].message.content.length).toBeGreaterThan(0);
    const replica = res.headers.get('x-llmgw-replica');
    expect(replica).toMatch(/^demo-/);
    // The id is one the scheduler reports as placed and ready.
    const replicas = ok(up.ctl('replicas', '--json'));
    const placed = (JSON.parse(replicas) as any).replicas ?? JSON.parse(replicas);
    expect(JSON.stringify(placed)).toContain(replica!);
    expect((await chat('demo', false)).status).toBe(401);
  });

  it('runs every gRPC link over mTLS with its own CA; writes <data-dir>/ctl.yaml (owner-only) with the addresses and the operator certificate', () => {
    for (const k of ['ca.key', 'accounting.key', 'router.key', 'operator.key']) expect(statSync(join(up.dataDir, 'tls', k)).mode & 0o777).toBe(0o600);
    const file = join(up.dataDir, 'ctl.yaml');
    const doc = parse(readFileSync(file, 'utf8'));
    expect(doc).toEqual({
      accounting: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      control: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      tls: { ca: 'tls/ca.crt', cert: 'tls/operator.crt', key: 'tls/operator.key' },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Without the operator certificate neither admin API answers.
    const bare = join(up.dataDir, 'ctl-no-tls.yaml');
    writeFileSync(bare, '{}\n');
    const noCert = up.ctl('--config', bare, '--accounting', doc.accounting, '--timeout', '1500', 'org', 'list');
    expect(noCert.status).toBe(1);
    expect(noCert.stderr).toMatch(/llmgw ctl: cannot reach accounting/);
    const noCertControl = up.ctl('--config', bare, '--control', doc.control, '--timeout', '1500', 'nodes');
    expect(noCertControl.status).toBe(1);
  });

  it('`llmgw ctl nodes`, `replicas` and `org list` work with no flags from the directory above .llmgw', () => {
    expect(ok(up.ctl('nodes'))).toMatch(/up-gpu-a[\s\S]*fab-a[\s\S]*up-gpu-b[\s\S]*fab-b/);
    expect(ok(up.ctl('replicas'))).toMatch(/demo\s.*ready/);
    expect(ok(up.ctl('org', 'list'))).toContain('demo');
  });

  it('loads the on-demand model through the in-process demand channel: 503 model_loading, then it serves', async () => {
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
    expect(ok(up.ctl('replicas'))).toMatch(/demo-lazy\s.*ready/);
  }, 90_000);

  it('uses no Redis: nothing under its key prefix there', async () => {
    try {
      await redis.connect();
    } catch {
      return; // no Redis on this machine at all: nothing to look at
    }
    expect(await redis.keys(`${fleetKeyPrefix(up.dataDir)}*`)).toEqual([]);
  });

  it(`stops everything on SIGINT, the engine processes too, with exit status 0 (up exits 1 itself past ${STOP_DEADLINE_MS / 1000} s)`, async () => {
    expect(up.engineRecords().length).toBe(3);
    // up enforces its own stop deadline (exit 1 past it); this wait only adds slack for a busy machine.
    expect(await up.interrupt(STOP_DEADLINE_MS + 25_000)).toEqual({ code: 0, signal: null });
    expect(up.output).toMatch(/SIGINT: stopping…\nstopped\n/);
    expect(up.output).not.toMatch(/did not stop within/);
    expect(up.engineRecords()).toEqual([]);
    await expect(fetch(`${routerUrl}/v1/models`)).rejects.toThrow();
  }, 60_000);
});
