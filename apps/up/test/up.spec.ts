import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { AdmissionController, DEFAULT_ADMISSION_CONFIG, type ReplicaStats } from '@llmgw/admission-core';
import { AdmissionRpcClient } from '@llmgw/admission-rpc';
import { deriveEngineSecret, readEngineKeyFile } from '@llmgw/endpoints';
import { engineChat, metricValue, simPriorities, waitUntil } from '@llmgw/testing';
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
  let routerAdmin: string;
  let admissionAddr: string;
  let key: string;
  /** The model's READY replicas as `llmgw ctl replicas --json` lists them. */
  const replicasOf = (model: string) =>
    (
      JSON.parse(ok(up.ctl('replicas', '--json'))) as Array<{
        replicaId: string;
        model: string;
        state: string;
        endpoint: string;
        gpuClass: string;
        fabric: string;
      }>
    )
      .filter((r) => r.model === model && r.state === 'REPLICA_STATE_READY')
      .map((r) => ({ id: r.replicaId, endpoint: r.endpoint, pool: r.fabric ? `${r.gpuClass}/${r.fabric}` : r.gpuClass }));
  const chat = (model: string, auth = true) =>
    fetch(`${routerUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 8 }),
    });

  it('starts inventory, two fake-GPU agents, the scheduler, admission, accounting and a router; prints a demo key', async () => {
    await up.match(/llmgw is up/, 150_000);
    [, routerUrl, routerAdmin] = await up.match(/router 1\s+(http:\/\/\S+)\/v1 .*admin (http:\/\/\S+)\/metrics/, 1_000);
    admissionAddr = (await up.match(/admission\s+(\S+) \(gRPC\)/, 1_000))[1];
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

  it('a placed engine refuses a request without its replica secret; through the router it serves (engines bind the management address)', async () => {
    const reps = replicasOf('demo');
    expect(reps.length).toBe(2);
    const engineKey = readEngineKeyFile(join(up.dataDir, 'engine.key'));
    for (const r of reps) {
      expect(new URL(r.endpoint).hostname).toBe('127.0.0.1');
      const none = await engineChat(r.endpoint, 'demo');
      expect(none.status).toBe(401);
      expect((await engineChat(r.endpoint, 'demo', key)).status).toBe(401); // the client's API key is not the engine's
      expect((await engineChat(r.endpoint, 'demo', deriveEngineSecret(engineKey, r.id))).status).toBe(200);
    }
    const res = await chat('demo');
    expect(res.status).toBe(200);
    await res.text();
  });

  it("a platinum key's request reaches the placed engine with priority 0 (the engine runs --scheduling-policy priority)", async () => {
    ok(up.ctl('org', 'create', 'vip'));
    ok(up.ctl('team', 'create', 'core', '--org', 'vip'));
    ok(up.ctl('project', 'create', 'prod', '--team', 'core', '--band', 'platinum'));
    const created = up.ctl('key', 'create', '--project', 'prod', '--name', 'vip-key', '--json');
    expect(created.status).toBe(0);
    const platinum = (JSON.parse(created.stdout) as { secret: string }).secret;
    const reps = replicasOf('demo');
    const sum = async () => {
      const out: Record<string, number> = {};
      for (const r of reps) for (const [p, n] of Object.entries(await simPriorities(r.endpoint))) out[p] = (out[p] ?? 0) + n;
      return out;
    };
    const before = await sum();
    const res = await fetch(`${routerUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platinum}`, 'x-llmgw-band': 'bronze' },
      body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'a platinum request' }], max_tokens: 2, priority: 99 }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const after = await sum();
    const delta = (p: string) => (after[p] ?? 0) - (before[p] ?? 0);
    // The key's band decides (the client's x-llmgw-band and body priority are not trusted once auth is on).
    expect({ '0': delta('0'), '3': delta('3'), '99': delta('99') }).toEqual({ '0': 1, '3': 0, '99': 0 });
  });

  it('a two-turn conversation goes back to the replica whose KV events (tier 2) hold its blocks', async () => {
    const [start] = replicasOf('demo');
    const messages: Array<{ role: string; content: string }> = [
      { role: 'user', content: 'Tell me about the lighthouse keepers of the northern coast and their long winters. '.repeat(5) },
    ];
    const send = (pin?: string) =>
      fetch(`${routerUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...(pin ? { 'x-llmgw-replica': pin } : {}) },
        body: JSON.stringify({ model: 'demo', messages, max_tokens: 8 }),
      });
    const seq0 = await metricValue(routerAdmin, 'llmgw_prefix_kv_sequence', { replica: start.id });
    // The first turn is pinned, so that the second landing there is the router's doing, not a tie-break.
    const first = await send(start.id);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-llmgw-replica')).toBe(start.id);
    const firstBody = (await first.json()) as { choices: Array<{ message: { content: string } }> };
    // The placed engine published the blocks it computed, and the router's tier-2 index applied them.
    await waitUntil(
      async () => (await metricValue(routerAdmin, 'llmgw_prefix_kv_sequence', { replica: start.id })) > seq0,
      `the router applied ${start.id}'s KV events`,
      { timeoutMs: 20_000, everyMs: 50 },
    );
    messages.push({ role: 'assistant', content: firstBody.choices[0].message.content }, { role: 'user', content: 'And what did they eat? '.repeat(3) });
    const second = await send();
    expect(second.status).toBe(200);
    const body = (await second.json()) as { usage: { prompt_tokens_details?: { cached_tokens?: number } } };
    expect({ replica: second.headers.get('x-llmgw-replica'), decision: second.headers.get('x-llmgw-cache-decision') }).toEqual({
      replica: start.id,
      decision: 'cache_hit',
    });
    expect(body.usage.prompt_tokens_details?.cached_tokens ?? 0).toBeGreaterThanOrEqual(16);
    expect(await metricValue(routerAdmin, 'llmgw_prefix_kv_replicas', { state: 'synced' })).toBeGreaterThanOrEqual(2);
  });

  it("admission grants credits from the placed replicas' declared max_num_seqs (over mTLS, as a router)", async () => {
    const tls = (n: string) => readFileSync(join(up.dataDir, 'tls', n));
    const client = new AdmissionRpcClient({ addresses: [admissionAddr], tls: { ca: tls('ca.crt'), cert: tls('router.crt'), key: tls('router.key') } });
    try {
      const reps = replicasOf('demo');
      const pool = reps[0].pool;
      let limit = 0;
      await waitUntil(
        async () => (limit = (await client.credit('e2e-router', [{ model: 'demo', pool, inUse: 0 }])).grants.find((g) => g.model === 'demo')?.limit ?? 0) > 0,
        'credits for demo',
        { timeoutMs: 20_000, everyMs: 100 },
      );
      const expected = (declared: boolean) => {
        const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG);
        ctl.updatePool(
          pool,
          reps.map((r): ReplicaStats => ({ id: r.id, waiting: 0, running: 0, ...(declared ? { declaredCapacity: 256 } : {}) })),
          'demo',
        );
        const l = ctl.credit('x', 'demo', pool, 0, 1000).limit;
        ctl.close();
        return l;
      };
      // The running router asks for credits too, so this client's share lies between half the
      // declared grant (two routers asking) and all of it; undeclared, idle replicas would give 1–2.
      expect(limit).toBeGreaterThanOrEqual(Math.floor(expected(true) / 2));
      expect(limit).toBeLessThanOrEqual(expected(true));
      expect(expected(false)).toBeLessThan(8);
    } finally {
      client.close();
    }
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
    await up.onDemandLoads((model) => chat(model), 'demo-lazy');
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
