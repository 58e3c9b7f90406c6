import type { agentV1 } from '@llmgw/contracts';
import { startTestMirror, testBytes, waitUntil, type TestMirror } from '@llmgw/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseEnv, commonProblems, type Engine, type NodeContext } from '../engines/engine';
import type { Supervisor } from './supervisor';
import { weightsSupervisor } from './weights-test-kit';

const NODE: NodeContext = { mgmtAddr: '127.0.0.1', bindHost: '127.0.0.1', gpuIndices: [0, 1], fabrics: [] };

/** An engine that starts only when its model path holds the weights (and then stays up). */
class NeedsWeights implements Engine {
  readonly kind = 'sim' as const;
  validate(s: agentV1.ShardSpec__Output, n: NodeContext) {
    return commonProblems(s, n);
  }
  build(s: agentV1.ShardSpec__Output, n: NodeContext) {
    return { argv: ['/bin/sh', '-c', 'test -f "$1/w.bin" && exec sleep 600', 'engine', s.modelPath], env: baseEnv(s, n), servedModelName: s.model };
  }
  flags() {
    return [];
  }
  probe() {
    return { binary: '/bin/sh', versionArgv: ['/bin/sh', '-c', 'echo 1'], helpArgv: ['/bin/sh', '-c', 'true'], parseVersion: (o: string) => o.trim() };
  }
}

function spec(shardId: string, weights: agentV1.WeightsSource__Output | null): agentV1.ShardSpec__Output {
  return {
    shardId,
    replicaId: shardId,
    model: 'm',
    profile: 'p',
    engine: 'sim',
    rank: 0,
    nnodes: 1,
    leaderAddr: '',
    leaderPort: 0,
    gpuIndices: [],
    hcas: [],
    fabric: '',
    httpPort: 20000 + shardId.charCodeAt(0),
    modelPath: '/nowhere',
    args: [],
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
    weights,
    adapters: [],
    maxLoras: 0,
  };
}

describe('supervisor: weights before launch', () => {
  let dir: string;
  let mirror: TestMirror;
  let sup: Supervisor;
  const events: agentV1.ShardStatus__Output[] = [];
  const W = { 'w.bin': testBytes(256 * 1024, 5), 'x.bin': testBytes(64 * 1024, 6) };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-sup-weights-'));
    mirror = await startTestMirror(W);
    events.length = 0;
  });
  afterEach(async () => {
    await sup.stopAll(1_000);
    sup.close();
    await mirror.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function supervisor(bytesPerSecond: number) {
    const made = weightsSupervisor({ dir, engine: new NeedsWeights(), node: NODE, bytesPerSecond, onStatus: (s) => events.push(s) });
    sup = made.sup;
    return made;
  }
  const src = (): agentV1.WeightsSource__Output => ({ baseUrl: mirror.url, manifest: 'manifest.json', credentialsFile: '', credentialsEnv: '' });

  it('shows DOWNLOADING with progress during a throttled download, one download for two shards, then starts both on the cache path', async () => {
    const { sup: s } = supervisor(128 * 1024);
    expect(s.start(spec('a', src())).result).toBe('ACK_RESULT_ACCEPTED');
    expect(s.start(spec('b', src())).result).toBe('ACK_RESULT_ACCEPTED');
    await waitUntil(() => events.some((e) => e.state === 'SHARD_STATE_DOWNLOADING' && (e.download?.bytesDone ?? 0) > 0), 'a DOWNLOADING status with progress');
    const p = events.find((e) => e.state === 'SHARD_STATE_DOWNLOADING' && e.download)!.download!;
    expect(p.bytesTotal).toBe(320 * 1024);
    expect(p.bytesDone).toBeLessThanOrEqual(p.bytesTotal);
    expect(events.find((e) => e.state === 'SHARD_STATE_DOWNLOADING' && e.download)!.message).toMatch(
      /^downloading weights: [\d.]+ (B|KiB)\/320\.0 KiB [\d.]+ (B|KiB|MiB)\/s( ETA [0-9hms]+)?$/,
    );
    await waitUntil(() => ['a', 'b'].every((id) => s.get(id)?.state === 'SHARD_STATE_READY'), 'both shards READY', { timeoutMs: 30_000 });
    expect(mirror.requests.filter((r) => r.path.endsWith('w.bin'))).toHaveLength(1);
    expect(s.get('a')?.download).toBeNull();
  });

  it('fails the shard naming the file whose digest is wrong, and launches nothing', async () => {
    mirror.corrupt('x.bin');
    const { sup: s } = supervisor(0);
    expect(s.start(spec('c', src()))).toEqual({ result: 'ACK_RESULT_ACCEPTED' });
    await waitUntil(() => s.get('c')?.state === 'SHARD_STATE_FAILED', `FAILED ${JSON.stringify(events.map((e) => [e.state, e.message]))}`, {
      timeoutMs: 20_000,
    });
    expect(s.get('c')?.message).toMatch(/^weights: file x\.bin: sha256 [0-9a-f]{64} does not match the manifest's/);
    expect(events.some((e) => e.shardId === 'c' && e.state === 'SHARD_STATE_STARTING')).toBe(false);
  });
});
