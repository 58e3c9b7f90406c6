import { SimAgent, spawnRole, waitUntil, type SpawnedRole } from '@llmgw/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { main } from '../src/main';
import { newLines } from '../src/commands/logs';

jest.setTimeout(60_000);

interface Run {
  code: number;
  out: string;
  err: string;
  json<T = any>(): T;
}

let inv: SpawnedRole;
let sched: SpawnedRole;
let acct: SpawnedRole;
let agent: SimAgent;
const extra: SimAgent[] = [];
const dir = mkdtempSync(join(tmpdir(), 'llmgw-ctl-fleet-'));
const bare = (url: string) => url.replace(/^http:\/\//, '');

async function ctl(...argv: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const code = await main(
    argv,
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    { controlAddr: bare(sched.urls.control), accountingAddr: bare(acct.urls.grpc), actor: 'tester@ci' },
  );
  return { code, out, err, json: () => JSON.parse(out) };
}

const spec = {
  shardId: 'rep-a-r0',
  replicaId: 'rep-a',
  model: 'llama-8b',
  profile: 'p',
  engine: 'sim',
  rank: 0,
  nnodes: 1,
  gpuIndices: [0, 1],
  httpPort: 8101,
};

// ctl talks to the placement-scheduler's ControlService (its one owner), which relays node admin to inventory and
// writes operator actions into accounting's audit log. Its reconcile interval and default drain timeout are long,
// so a replica stopped within the test was stopped by the --replica-timeout deadline, nothing else.
beforeAll(async () => {
  acct = await spawnRole('accounting', ['--port', '0', '--admin-port', '0', '--database-url', 'pglite:memory', '--log-level', 'warn'], { timeoutMs: 120_000 });
  inv = await spawnRole('inventory', ['--port', '0', '--agent-listen', '127.0.0.1:0', '--admin-port', '0', '--log-level', 'warn'], { timeoutMs: 120_000 });
  const catalog = join(dir, 'catalog.yaml');
  writeFileSync(
    catalog,
    stringify({
      models: [
        { name: 'llama-8b', source: 'sim/llama-8b', scaling: { min: 1, max: 1 }, profiles: [{ name: 'p', gpu_class: 'h100-80g', engine: 'sim', tp: 2 }] },
      ],
    }),
  );
  const config = join(dir, 'placement-scheduler.yaml');
  writeFileSync(
    config,
    stringify({
      catalog,
      inventory: { address: bare(inv.urls.grpc) },
      accounting: { address: bare(acct.urls.grpc) },
      listen: '127.0.0.1:0',
      admin_listen: '127.0.0.1:0',
      reconcile_interval: '10m',
      drain_timeout: '10m',
      log_level: 'warn',
    }),
  );
  sched = await spawnRole('placement-scheduler', ['--config', config], { timeoutMs: 120_000 });
  agent = new SimAgent({
    address: inv.urls.agents.replace('http://', ''),
    nodeId: 'gpu-a-01',
    heartbeatIntervalMs: 200,
    statsIntervalMs: 200,
    fabric: 'ib-a',
    runningShards: [{ shardId: 'rep-a-r0', replicaId: 'rep-a', state: 'SHARD_STATE_READY', spec, endpoint: 'http://127.0.0.1:8101' }],
    logs: { 'rep-a-r0': ['loading weights', 'ready on :8101'], '': ['agent started'] },
  });
  await agent.start();
}, 90_000);

afterAll(async () => {
  agent?.close();
  for (const a of extra) a.close();
  await sched?.stop();
  await inv?.stop();
  await acct?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('llmgw ctl against the placement-scheduler: nodes, cordon, drain, logs, top, audit', () => {
  it('lists and shows nodes, as text and JSON', async () => {
    const list = await ctl('nodes');
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^NODE\s+STATE\s+GPUS FREE\s+FABRIC/m);
    expect(list.out).toMatch(/gpu-a-01\s+ready\s+6\/8 h100-80g\s+ib-a\s+1\s/);
    const json = (await ctl('nodes', 'list', '--json')).json();
    expect(json[0]).toMatchObject({
      info: { nodeId: 'gpu-a-01' },
      state: 'NODE_STATE_READY',
      allocations: [
        { gpuIndex: 0, shardId: 'rep-a-r0' },
        { gpuIndex: 1, shardId: 'rep-a-r0' },
      ],
    });
    const show = await ctl('nodes', 'show', 'gpu-a-01');
    expect(show.out).toMatch(/state:\s+ready/);
    expect(show.out).toMatch(/rep-a-r0\s+rep-a\s+llama-8b\s+ready/);
    const missing = await ctl('nodes', 'show', 'nope', '--json');
    expect(missing.code).toBe(1);
    expect(missing.json()).toMatchObject({ error: { code: 'LLMGW_ERR_NOT_FOUND' } });
  });

  it('cordons, drains and uncordons, saying when nothing changed', async () => {
    expect((await ctl('cordon', 'gpu-a-01', '--reason', 'bad fan')).out).toBe('cordoned gpu-a-01: now cordoned\n');
    expect((await ctl('cordon', 'gpu-a-01', '--reason', 'bad fan')).out).toBe('gpu-a-01 was already cordoned (nothing changed)\n');
    expect((await ctl('nodes')).out).toMatch(/gpu-a-01\s+cordoned\s+.*bad fan/);
    const drain = await ctl('drain', 'gpu-a-01', '--reason', 'maintenance', '--json');
    expect(drain.json()).toMatchObject({ changed: true, replicaIds: ['rep-a'], node: { state: 'NODE_STATE_DRAINING', stateReason: 'maintenance' } });
    expect((await ctl('uncordon', 'gpu-a-01')).out).toBe('uncordoned gpu-a-01: now ready\n');
  });

  it("reads a replica's output and the agent log", async () => {
    const r = await ctl('logs', 'rep-a', '--tail', '1');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ready on :8101\n$/);
    expect(r.out).not.toMatch(/loading weights/);
    const byShard = await ctl('logs', 'rep-a-r0', '--json');
    expect(
      byShard.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).text),
    ).toEqual(['loading weights', 'ready on :8101']);
    expect((await ctl('logs', '--node', 'gpu-a-01')).out).toMatch(/agent started/);
    const none = await ctl('logs', 'nothing-here');
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/no node reports shard nothing-here or replica nothing-here/);
    expect((await ctl('logs')).code).toBe(2);
  });

  it("top shows GPUs and the replica's engine load", async () => {
    let screen = '';
    await waitUntil(
      async () => {
        screen = (await ctl('top', '--once')).out;
        return /llama-8b\s+rep-a\s+gpu-a-01\s+ready\s+1\s+3\s+25%/.test(screen);
      },
      "top to show the replica's load",
      { everyMs: 100, seen: () => screen },
    );
    expect(screen).toMatch(/1 nodes \(1 ready\), 8 GPUs, 1 replicas/);
    expect(screen).toMatch(/gpu-a-01\s+ready\s+6\/8 h100-80g\s+10%/);
    expect(screen).toMatch(/llama-8b\s+rep-a\s+gpu-a-01\s+ready\s+1\s+3\s+25%/);
    expect((await ctl('top', '--json')).json()[0].engineStats[0]).toMatchObject({ replicaId: 'rep-a', waiting: 1, running: 3 });
  });

  it('says where it tried when the control API is down', async () => {
    let err = '';
    const code = await main(
      ['nodes'],
      { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } },
      { controlAddr: '127.0.0.1:1', actor: 't' },
    );
    expect(code).toBe(1);
    expect(err).toMatch(
      /cannot reach the control API at 127\.0\.0\.1:1; is the placement-scheduler running\? Set --control, LLMGW_CONTROL_ADDR or control in the config file/,
    );
  });

  it('`drain --replica-timeout 2s` reaches the reconciler: the replica drains with 2 s and is stopped at that deadline; `ctl audit` names who drained', async () => {
    // Room for the replacement, so the replica can move.
    const b = new SimAgent({ address: inv.urls.agents.replace('http://', ''), nodeId: 'gpu-b-01', heartbeatIntervalMs: 200, fabric: 'ib-a' });
    extra.push(b);
    await b.start();
    await waitUntil(async () => (await ctl('nodes', '--json')).json().length === 2, 'gpu-b-01 listed', { timeoutMs: 30_000, everyMs: 100 });
    const drain = await ctl('drain', 'gpu-a-01', '--reason', 'swap PSU', '--replica-timeout', '2s', '--actor', 'alice@ops', '--json');
    expect(drain.code).toBe(0);
    expect(drain.json()).toMatchObject({ changed: true, node: { state: 'NODE_STATE_DRAINING', stateReason: 'swap PSU' } });
    // Event-driven: the replacement starts on gpu-b-01, the old replica is told to drain within 2 s, then stopped.
    const wait = { timeoutMs: 60_000, everyMs: 50 };
    await waitUntil(() => b.received.some((m) => m.msg === 'start'), 'the replacement started on gpu-b-01', wait);
    await waitUntil(() => agent.received.some((m) => m.msg === 'drain' && m.drain!.shardId === 'rep-a-r0'), 'DrainShard for rep-a-r0', wait);
    expect(agent.received.find((m) => m.msg === 'drain')!.drain!.timeoutMs).toBe(2000);
    await waitUntil(() => agent.received.some((m) => m.msg === 'stop' && m.stop!.shardId === 'rep-a-r0'), 'StopShard for rep-a-r0 at the 2 s deadline', wait);
    // The simulated agent never reports the shard drained, and the scheduler's own default and interval are 10 min:
    // only the operator's 2 s could have stopped it.

    const audit = await ctl('audit', '--json');
    expect(audit.code).toBe(0);
    const ev = (audit.json() as Array<{ actor: string; action: string; targetType: string; targetId: string; details: string }>).find(
      (e) => e.action === 'node.drain' && e.targetId === 'gpu-a-01',
    );
    expect(ev).toMatchObject({ actor: 'alice@ops', targetType: 'node' });
    expect(JSON.parse(ev!.details)).toMatchObject({ reason: 'swap PSU', replicaDrainTimeoutMs: 2000, replicas: ['rep-a'], changed: true });
    const human = await ctl('audit');
    expect(human.out).toMatch(/alice@ops\s+node\.drain\s+node:gpu-a-01/);
    // The earlier cordon by the default actor is there too.
    expect(human.out).toMatch(/tester@ci\s+node\.cordon\s+node:gpu-a-01/);
  });
});

describe('logs --follow de-duplication', () => {
  const l = (atMs: number, text: string) => ({ atMs, text, stream: 'LOG_STREAM_STDOUT' as const });
  it.each([
    ['a later line is new', [l(5, 'b')], 4, [], ['b']],
    ['a line at the last printed ms already printed is not', [l(4, 'a'), l(4, 'b')], 4, ['a'], ['b']],
    ['an older line is not', [l(3, 'x')], 4, [], []],
  ])('%s', (_n, lines, lastAt, printed, want) => {
    expect(newLines(lines, lastAt, new Set(printed)).map((x) => x.text)).toEqual(want);
  });
});
