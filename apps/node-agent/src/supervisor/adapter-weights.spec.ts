import type { agentV1 } from '@llmgw/contracts';
import { startTestMirror, testBytes, waitUntil, type TestMirror } from '@llmgw/testing';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseEnv, commonProblems, type Engine, type NodeContext } from '../engines/engine';
import { cacheKey } from '../weights/source';
import type { Supervisor } from './supervisor';
import { weightsSupervisor } from './weights-test-kit';
import { engineSpec, weightsInUse } from './weights-step';

const NODE: NodeContext = { mgmtAddr: '127.0.0.1', bindHost: '127.0.0.1', gpuIndices: [0], fabrics: [] };

/** An engine that starts only when the model and every adapter are where its spec says (and then stays up). */
class NeedsAdapters implements Engine {
  readonly kind = 'sim' as const;
  validate(s: agentV1.ShardSpec__Output, n: NodeContext) {
    return commonProblems(s, n);
  }
  build(s: agentV1.ShardSpec__Output, n: NodeContext) {
    const checks = [`test -f "${s.modelPath}/w.bin"`, ...s.adapters.map((a) => `test -f "${a.path}/adapter.bin"`)].join(' && ');
    return { argv: ['/bin/sh', '-c', `${checks} && exec sleep 600`], env: baseEnv(s, n), servedModelName: s.model };
  }
  flags() {
    return [];
  }
  probe() {
    return { binary: '/bin/sh', versionArgv: ['/bin/sh', '-c', 'echo 1'], helpArgv: ['/bin/sh', '-c', 'true'], parseVersion: (o: string) => o.trim() };
  }
}

describe('supervisor: adapter weights through the model cache', () => {
  let dir: string;
  let model: TestMirror;
  let adapter: TestMirror;
  let sup: Supervisor;
  const events: agentV1.ShardStatus__Output[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-sup-adapters-'));
    model = await startTestMirror({ 'w.bin': testBytes(64 * 1024, 1) });
    adapter = await startTestMirror({ 'adapter.bin': testBytes(16 * 1024, 2), 'adapter_config.json': Buffer.from('{"r":8}') }, { prefix: '/adapters/sql/' });
    events.length = 0;
  });
  afterEach(async () => {
    await sup.stopAll(1_000);
    sup.close();
    await Promise.all([model.close(), adapter.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const mirror = (m: TestMirror): agentV1.WeightsSource__Output => ({ baseUrl: m.url, manifest: 'manifest.json', credentialsFile: '', credentialsEnv: '' });
  function spec(shardId: string, adapters: agentV1.LoraAdapter__Output[]): agentV1.ShardSpec__Output {
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
      httpPort: 21000 + shardId.charCodeAt(0),
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
      weights: mirror(model),
      adapters,
      maxLoras: 0,
    };
  }
  function supervisor() {
    const made = weightsSupervisor({ dir, engine: new NeedsAdapters(), node: NODE, onStatus: (s) => events.push(s) });
    sup = made.sup;
    return made;
  }

  it('fetches a mirrored adapter before launch and gives the engine its cache directory; a local adapter path is kept as is', async () => {
    const local = join(dir, 'legal');
    mkdirSync(local);
    writeFileSync(join(local, 'adapter.bin'), 'x');
    const { sup: s, cacheDir } = supervisor();
    const adapters = [
      { name: 'sql', path: '', weights: mirror(adapter), scale: 1 },
      { name: 'legal', path: local, weights: null, scale: 0.5 },
    ];
    expect(s.start(spec('a', adapters)).result).toBe('ACK_RESULT_ACCEPTED');
    await waitUntil(() => s.get('a')?.state === 'SHARD_STATE_READY', `READY ${JSON.stringify(events.map((e) => [e.state, e.message]))}`, { timeoutMs: 20_000 });
    expect(adapter.requests.filter((r) => r.path.endsWith('adapter.bin'))).toHaveLength(1);
    const built = engineSpec(spec('a', adapters), cacheDir);
    expect(built.adapters.map((a) => a.path)).toEqual([join(cacheDir, cacheKey({ kind: 'mirror', baseUrl: adapter.url, manifest: 'manifest.json' })), local]);
    // Both the model and the adapter are in use: never reclaimed while the shard runs.
    expect(weightsInUse([spec('a', adapters)]).size).toBe(2);
  });

  it("fails the shard naming the adapter and the file when the adapter's digest is wrong; the engine never starts", async () => {
    adapter.corrupt('adapter.bin');
    const { sup: s } = supervisor();
    s.start(spec('b', [{ name: 'sql', path: '', weights: mirror(adapter), scale: 1 }]));
    await waitUntil(() => s.get('b')?.state === 'SHARD_STATE_FAILED', `FAILED ${JSON.stringify(events.map((e) => [e.state, e.message]))}`, {
      timeoutMs: 10_000,
    });
    expect(s.get('b')?.message).toMatch(/^adapter sql: file adapter\.bin: sha256 [0-9a-f]{64} does not match the manifest's/);
    expect(events.some((e) => e.shardId === 'b' && e.state === 'SHARD_STATE_STARTING')).toBe(false);
  });
});
