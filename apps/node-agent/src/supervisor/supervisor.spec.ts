import { freePort, waitUntil } from '@llmgw/testing';
import type { agentV1 } from '@llmgw/contracts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimEngineAdapter } from '../engines/adapters';
import { baseEnv, commonProblems, type Engine, type NodeContext } from '../engines/engine';
import { LogRing } from './log-ring';
import { groupAlive, parseProcStat, readProcStat } from './proc';
import { Supervisor, listsModel, type SupervisorTimings } from './supervisor';

const NODE: NodeContext = { mgmtAddr: '127.0.0.1', bindHost: '127.0.0.1', gpuIndices: [0, 1], fabrics: [] };
const TIMINGS: SupervisorTimings = {
  healthIntervalMs: 100,
  stopGraceMs: 5_000,
  drainTimeoutMs: 5_000,
  startupTimeoutMs: 60_000,
  maxRestarts: 2,
  restartBackoffMs: 50,
  restartBackoffMaxMs: 200,
};

function spec(over: Partial<agentV1.ShardSpec__Output>): agentV1.ShardSpec__Output {
  return {
    shardId: 's1',
    replicaId: 'rep',
    model: 'sim-a',
    profile: 'p',
    engine: 'sim',
    rank: 0,
    nnodes: 1,
    leaderAddr: '',
    leaderPort: 0,
    gpuIndices: [],
    hcas: [],
    fabric: '',
    httpPort: 0,
    modelPath: '',
    args: ['--decode-tps', '0', '--log-level', 'info'],
    env: {},
    tensorParallel: 0,
    pipelineParallel: 0,
    startupTimeoutMs: 0,
    launchMode: '',
    servedModelName: '',
    maxNumSeqs: 0,
    schedulingPolicy: '',
    kvEventsPort: 0,
    kvReplayPort: 0,
    apiKey: '',
    weights: null,
    adapters: [],
    maxLoras: 0,
    ...over,
  };
}

/** A stand-in engine running a shell script (for what sim-engine cannot do: ignore SIGTERM, never answer). */
class ShellEngine implements Engine {
  readonly kind = 'sim' as const;
  constructor(
    private readonly script: string,
    private readonly healthPort?: number,
  ) {}
  validate(s: agentV1.ShardSpec__Output, n: NodeContext) {
    return commonProblems(s, n);
  }
  build(s: agentV1.ShardSpec__Output, n: NodeContext) {
    const url = this.healthPort ? `http://127.0.0.1:${this.healthPort}` : undefined;
    return {
      argv: ['/bin/sh', '-c', this.script],
      env: baseEnv(s, n),
      servedModelName: 'x',
      ...(url ? { endpoint: url, healthUrl: `${url}/health`, modelsUrl: `${url}/v1/models` } : {}),
    };
  }
  flags() {
    return [];
  }
  probe() {
    return { binary: '/bin/sh', versionArgv: ['/bin/sh', '-c', 'echo 1'], helpArgv: ['/bin/sh', '-c', 'true'], parseVersion: (o: string) => o.trim() };
  }
}

describe('Supervisor with real sim-engine processes', () => {
  let workDir: string;
  const sups: Supervisor[] = [];
  const events: agentV1.ShardStatus__Output[] = [];

  function supervisor(engine: Engine = new SimEngineAdapter(), t: Partial<SupervisorTimings> = {}) {
    const sup = new Supervisor({
      workDir,
      engines: new Map([['sim', engine]]),
      node: NODE,
      timings: { ...TIMINGS, ...t },
      logRingLines: 500,
      onStatus: (s) => events.push(s),
    });
    sups.push(sup);
    return sup;
  }

  /** Waits for a status event matching `pred` (after index `from`); fails loudly with what was seen. */
  function until(pred: (s: agentV1.ShardStatus__Output) => boolean, what: string, from = 0, ms = 60_000): Promise<agentV1.ShardStatus__Output> {
    return waitUntil(() => events.slice(from).find(pred), what, {
      timeoutMs: ms,
      everyMs: 20,
      seen: () => events.slice(from).map((e) => [e.shardId, e.state, e.message]),
    });
  }

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'llmgw-supervisor-'));
  });
  afterAll(async () => {
    for (const s of sups) await s.stopAll(1_000);
    for (const s of sups) s.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('a drain lasts at least drain_settle (routers hear of it meanwhile), even with nothing in flight, and at most its timeout', async () => {
    const sup = supervisor(undefined, { drainSettleMs: 600 });
    const port = await freePort();
    const from = events.length;
    sup.start(spec({ shardId: 'd1', httpPort: port }));
    await until((s) => s.shardId === 'd1' && s.state === 'SHARD_STATE_READY', 'READY', from);
    const [idle] = await sup.scrape();
    expect(idle).toMatchObject({ running: 0, waiting: 0 });
    const began = Date.now();
    expect(sup.drain('d1', 5_000).result).toBe('ACK_RESULT_ACCEPTED');
    const drained = await until((s) => s.shardId === 'd1' && s.drained, 'drained', from);
    expect(Date.now() - began).toBeGreaterThanOrEqual(600);
    expect(drained.message).toBe('drained: no requests in flight');
    await sup.stop('d1', 5_000, 'test');
    await sup.stopped('d1');
    // A settle longer than the drain's own timeout is cut to it.
    const port2 = await freePort();
    const from2 = events.length;
    const sup2 = supervisor(undefined, { drainSettleMs: 60_000 });
    sup2.start(spec({ shardId: 'd2', httpPort: port2 }));
    await until((s) => s.shardId === 'd2' && s.state === 'SHARD_STATE_READY', 'READY', from2);
    sup2.drain('d2', 300);
    await until((s) => s.shardId === 'd2' && s.drained, 'drained within the timeout', from2);
    await sup2.stop('d2', 5_000, 'test');
    await sup2.stopped('d2');
  });

  it('start → READY with logs; repeated start is a no-op; drain; stop kills the group', async () => {
    const sup = supervisor();
    const port = await freePort();
    const from = events.length;
    expect(sup.start(spec({ shardId: 'a1', httpPort: port }))).toEqual({ result: 'ACK_RESULT_ACCEPTED' });
    expect(sup.start(spec({ shardId: 'a1', httpPort: port })).result).toBe('ACK_RESULT_ALREADY_DONE');
    const first = await until((s) => s.shardId === 'a1', 'first status', from);
    expect(first.state).toBe('SHARD_STATE_PENDING');
    expect(first.spec?.shardId).toBe('a1');
    const ready = await until((s) => s.shardId === 'a1' && s.state === 'SHARD_STATE_READY', 'READY', from);
    expect(ready).toMatchObject({ message: 'serving sim-a', endpoint: `http://127.0.0.1:${port}`, spec: null });
    const states = events
      .slice(from)
      .filter((s) => s.shardId === 'a1')
      .map((s) => s.state);
    expect(states.slice(0, 2)).toEqual(['SHARD_STATE_PENDING', 'SHARD_STATE_STARTING']);
    const models = (await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data[0].id).toBe('sim-a');
    const pgid = ready.pgid;
    expect(pgid).toBe(ready.pid);
    expect(readProcStat(ready.pid)?.pgid).toBe(pgid);
    await until(() => (sup.logs('a1', 100)?.lines.some((l) => l.text.includes('listening')) ? ({} as any) : undefined), 'listening log line');

    const [stats] = await sup.scrape();
    expect(stats).toMatchObject({ shardId: 'a1', engine: 'vllm', running: 0, waiting: 0, error: '' });
    expect(stats.scrapedAtMs).toBeGreaterThan(0);

    expect(sup.drain('a1', 2_000, 'scale down').result).toBe('ACK_RESULT_ACCEPTED');
    expect(sup.drain('a1').result).toBe('ACK_RESULT_ALREADY_DONE');
    expect(sup.get('a1')).toMatchObject({ state: 'SHARD_STATE_DRAINING', drained: false });
    // The scheduler reads the structured flag, not the message.
    const drained = await until((s) => s.shardId === 'a1' && s.drained, 'drained', from);
    expect(drained).toMatchObject({ state: 'SHARD_STATE_DRAINING', message: 'drained: no requests in flight' });

    expect(sup.stop('a1', 5_000, 'test').result).toBe('ACK_RESULT_ACCEPTED');
    expect(sup.stop('a1').result).toBe('ACK_RESULT_ALREADY_DONE');
    await sup.stopped('a1');
    expect(sup.get('a1')).toMatchObject({ state: 'SHARD_STATE_STOPPED', message: 'stopped: test', exited: true, pid: 0 });
    expect(groupAlive(pgid)).toBe(false);
    expect(sup.stop('a1').result).toBe('ACK_RESULT_ALREADY_DONE');
    expect(sup.drain('nope').errorCode).toBe('LLMGW_ERR_NOT_FOUND');
  }, 90_000);

  it('rejects what it cannot run, with the reason', () => {
    const sup = supervisor();
    expect(sup.start(spec({ shardId: '../etc', httpPort: 1 }))).toMatchObject({ result: 'ACK_RESULT_REJECTED', errorCode: 'LLMGW_ERR_INVALID_ARGUMENT' });
    expect(sup.start(spec({ shardId: 'b1', engine: 'vllm', httpPort: 1 })).message).toMatch(/engine "vllm" is not configured on this node \(configured: sim\)/);
    expect(sup.start(spec({ shardId: 'b2', gpuIndices: [5], httpPort: 1 })).message).toBe('GPUs 5 do not exist on this node (it has 0, 1)');
  });

  it('a crashing engine is restarted with backoff, then FAILED with the exit code', async () => {
    const sup = supervisor();
    const from = events.length;
    sup.start(spec({ shardId: 'c1', httpPort: await freePort(), args: ['--dialect', 'bogus'] }));
    const failed = await until((s) => s.shardId === 'c1' && s.state === 'SHARD_STATE_FAILED', 'FAILED', from);
    expect(failed).toMatchObject({ message: 'exited with code 2 after 2 restarts', restarts: 2, exited: true, exitCode: 2 });
    const restarts = events
      .slice(from)
      .filter((s) => s.shardId === 'c1' && s.state === 'SHARD_STATE_PENDING')
      .map((s) => s.message);
    expect(restarts).toEqual(['accepted', 'exited with code 2; restart 1 of 2 in 50 ms', 'exited with code 2; restart 2 of 2 in 100 ms']);
    expect(sup.logs('c1', 50)!.lines.some((l) => l.stream === 'LOG_STREAM_STDERR')).toBe(true);
  }, 90_000);

  it('an engine that ignores SIGTERM is killed after the grace period', async () => {
    const sup = supervisor(new ShellEngine('trap "" TERM; echo up; while true; do sleep 1; done'));
    const from = events.length;
    sup.start(spec({ shardId: 'd1', rank: 0, httpPort: 1 }));
    const starting = await until((s) => s.shardId === 'd1' && s.state === 'SHARD_STATE_STARTING', 'STARTING', from);
    await until(() => (sup.logs('d1', 10)?.lines.some((l) => l.text === 'up') ? ({} as any) : undefined), 'the trap to be set');
    sup.stop('d1', 300, 'stubborn');
    await sup.stopped('d1');
    expect(sup.get('d1')?.state).toBe('SHARD_STATE_STOPPED');
    expect(groupAlive(starting.pgid)).toBe(false);
  }, 30_000);

  it('a shard that never becomes ready fails at its startup timeout', async () => {
    const sup = supervisor(new ShellEngine('sleep 30', await freePort()));
    const from = events.length;
    sup.start(spec({ shardId: 'e1', httpPort: 1, startupTimeoutMs: 300 }));
    const failed = await until((s) => s.shardId === 'e1' && s.state === 'SHARD_STATE_FAILED', 'FAILED', from);
    expect(failed.message).toBe('not ready within 0 s (/health never answered)');
  }, 30_000);

  it('a new supervisor adopts running engines; dead and reused pids are not adopted', async () => {
    const first = supervisor();
    const port = await freePort();
    const from = events.length;
    first.start(spec({ shardId: 'f1', httpPort: port }));
    const ready = await until((s) => s.shardId === 'f1' && s.state === 'SHARD_STATE_READY', 'READY', from);
    first.close(); // the agent goes away; the engine must not

    // Two records a previous agent might have left: a pid that is gone, and a pid now used by another process.
    const stale = (shardId: string, pid: number, startTime: number) => ({
      version: 1,
      spec: spec({ shardId, httpPort: 1 }),
      state: 'SHARD_STATE_READY',
      stateSinceMs: 1,
      message: 'serving',
      pid,
      pgid: pid,
      startTime,
      launchedAtMs: 1,
      argv: ['x'],
      restarts: 0,
    });
    writeFileSync(join(workDir, 'shards', 'g1.json'), JSON.stringify(stale('g1', 2 ** 22 + 17, 5)));
    writeFileSync(join(workDir, 'shards', 'h1.json'), JSON.stringify(stale('h1', process.pid, 1)));

    const second = supervisor();
    const r = second.adopt();
    expect(r.adopted).toEqual(['f1']);
    expect(r.failed.sort()).toEqual(['g1', 'h1']);
    expect(second.get('f1')).toMatchObject({ state: 'SHARD_STATE_READY', adopted: true, pid: ready.pid, pgid: ready.pgid });
    expect(second.get('g1')?.message).toBe(`engine process ${2 ** 22 + 17} exited while the agent was down`);
    expect(second.get('h1')?.message).toBe(`pid ${process.pid} now belongs to another process (start time or process group differ); not adopted`);
    expect(second.running().map((s) => s.shardId)).toEqual(['f1']);
    expect(second.running()[0].spec?.shardId).toBe('f1');
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    expect(second.logs('f1', 200)!.lines.some((l) => l.text.includes('listening'))).toBe(true);

    // The adopted engine's death is seen through /proc (it is not our child).
    process.kill(-ready.pgid, 'SIGKILL');
    const after = await until((s) => s.shardId === 'f1' && s.state !== 'SHARD_STATE_READY' && s.adopted, 'the adopted engine to be seen gone', from);
    expect(after.message).toMatch(/process \d+ is gone/);
    // Relaunched by this agent: a child of ours now, no longer the adopted process.
    const relaunched = await until((s) => s.shardId === 'f1' && s.state === 'SHARD_STATE_READY' && s.pid !== ready.pid, 'the relaunched engine READY', from);
    expect(relaunched.adopted).toBe(false);
    expect(second.get('f1')).toMatchObject({ adopted: false, restarts: 1, pid: relaunched.pid });
    expect(second.running()[0].adopted).toBe(false);
    await second.stopAll(1_000);
  }, 90_000);
});

describe('pieces', () => {
  it('parses /proc/<pid>/stat with a command name holding spaces and parentheses', () => {
    const line = '4242 (node (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 11 0 987654 1000 100 18446744073709551615';
    expect(parseProcStat(line)).toEqual({ pid: 4242, state: 'S', ppid: 1, pgid: 4242, startTime: 987654 });
    expect(parseProcStat('garbage')).toBeUndefined();
  });

  it('reads this process from /proc', () => {
    expect(readProcStat(process.pid)).toMatchObject({ pid: process.pid, ppid: process.ppid });
  });

  it.each([
    ['{"data":[{"id":"m"}]}', 'm', true],
    ['{"data":[{"id":"other"}]}', 'm', false],
    ['{"object":"list"}', 'm', false],
    ['not json', 'm', false],
  ])('models body %s lists %s: %s', (body, m, want) => expect(listsModel(body, m)).toBe(want));

  it('the log ring keeps the last N lines and says when older ones are gone', () => {
    const r = new LogRing(3);
    for (let i = 1; i <= 5; i++) r.push('LOG_STREAM_STDOUT', `l${i}`, i * 10);
    expect(r.read(10)).toEqual({ lines: [30, 40, 50].map((t) => ({ atMs: t, stream: 'LOG_STREAM_STDOUT', text: `l${t / 10}` })), truncated: true });
    expect(r.read(2).lines.map((l) => l.text)).toEqual(['l4', 'l5']);
    expect(r.read(2).truncated).toBe(false);
    expect(r.read(10, 40)).toMatchObject({ lines: [{ text: 'l4' }, { text: 'l5' }], truncated: false });
    expect(r.read(10, 10).truncated).toBe(true);
    r.push('LOG_STREAM_STDERR', 'x'.repeat(20_000), 60);
    expect(r.read(1).lines[0].text).toHaveLength(16 * 1024);
  });
});
