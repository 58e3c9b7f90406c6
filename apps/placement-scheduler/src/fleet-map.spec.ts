import type { agentV1 } from '@llmgw/contracts';
import type { ShardLaunchSpec } from '@llmgw/placement';
import { nodeFromWire, shardFromWire, specFromWire, specToWire } from './fleet-map';

const info = (over: Record<string, unknown> = {}) =>
  ({
    nodeId: 'gpu-a-01',
    hostname: 'gpu-a-01.lab',
    mgmtAddr: '10.0.0.5',
    labels: {},
    gpus: [0, 1].map((index) => ({
      index,
      gpuClass: 'h100-80g',
      computeCapability: '9.0',
      numaNode: index,
      uuid: '',
      name: '',
      memoryTotalMib: 81559,
      pciBusId: '',
      nvlinkPeers: [],
    })),
    hcas: [
      { name: 'mlx5_0', pciBusId: '', numaNode: 0, ports: [{ port: 1, state: 'PORT_STATE_ACTIVE' }] },
      { name: 'mlx5_1', pciBusId: '', numaNode: 1, ports: [{ port: 1, state: 'PORT_STATE_DOWN' }] },
    ],
    fabrics: [
      { fabric: 'ib-a', hcas: ['mlx5_0', 'mlx5_1'], rateGbps: 400, source: 'FABRIC_SOURCE_LABEL' },
      { fabric: 'unknown', hcas: [], rateGbps: 0, source: 'FABRIC_SOURCE_UNKNOWN' },
    ],
    topology: { nvlinkGroups: [{ gpuIndices: [0, 1] }], numaNodes: 2, source: 'nvml' },
    versions: {
      agent: '0.1.0',
      driver: '',
      cuda: '',
      engines: [
        { engine: 'vllm', version: '0.29.0', binary: '' },
        { engine: 'tgi', version: '1', binary: '' },
      ],
    },
    cpuCores: 1,
    memoryTotalMib: 1,
    simulated: false,
    ...over,
  }) as unknown as agentV1.NodeInfo__Output;

describe('inventory node → placement node', () => {
  it('maps connectivity, intent, GPU health, ACTIVE HCAs, known fabrics, NVLink and installed engines', () => {
    const n = nodeFromWire({
      info: info(),
      connectivity: 'CONNECTIVITY_CONNECTED',
      intent: 'NODE_INTENT_DRAINING',
      gpuHealth: [{ index: 1, health: 'GPU_HEALTH_FAILED' } as agentV1.GpuHealthReport__Output],
      shards: [],
    })!;
    expect(n).toMatchObject({
      id: 'gpu-a-01',
      mgmtAddr: '10.0.0.5',
      condition: 'ready',
      cordoned: true,
      draining: true,
      engines: ['vllm'],
      nvlinkGroups: [[0, 1]],
    });
    expect(n.gpus.map((g) => g.health)).toEqual(['ok', 'failed']);
    expect(n.hcas.map((h) => [h.name, h.active])).toEqual([
      ['mlx5_0', true],
      ['mlx5_1', false],
    ]);
    expect(n.fabrics.map((f) => [f.name, f.known])).toEqual([
      ['ib-a', true],
      ['unknown', false],
    ]);
  });

  it.each([
    ['CONNECTIVITY_CONNECTED', 'ready'],
    ['CONNECTIVITY_UNREACHABLE', 'unreachable'],
    ['CONNECTIVITY_LOST', 'lost'],
  ])('%s → %s; a simulated node runs any engine; no intent → schedulable', (connectivity, condition) => {
    const n = nodeFromWire({ info: info({ simulated: true }), connectivity, gpuHealth: [], shards: [] })!;
    expect([n.condition, n.engines, n.cordoned, n.draining]).toEqual([condition, 'any', false, false]);
  });

  it("carries the operator's replica drain timeout of a draining node (`ctl drain --replica-timeout`), and only of a draining one", () => {
    const base = { info: info(), connectivity: 'CONNECTIVITY_CONNECTED', gpuHealth: [], shards: [] };
    expect(nodeFromWire({ ...base, intent: 'NODE_INTENT_DRAINING', intentDrainTimeoutMs: 2000 })!.drainTimeoutMs).toBe(2000);
    expect(nodeFromWire({ ...base, intent: 'NODE_INTENT_DRAINING', intentDrainTimeoutMs: 0 })!.drainTimeoutMs).toBeUndefined();
    expect(nodeFromWire({ ...base, intent: 'NODE_INTENT_CORDONED', intentDrainTimeoutMs: 2000 })!.drainTimeoutMs).toBeUndefined();
  });

  it("carries each GPU's reported power limit to placement; 0 (not reported) leaves it to facility.default_gpu_watts", () => {
    const gpus = [0, 1].map((index) => ({ index, gpuClass: 'l40s-45g', computeCapability: '8.9', numaNode: 0, powerLimitWatts: index === 0 ? 350 : 0 }));
    const n = nodeFromWire({ info: info({ gpus }), connectivity: 'CONNECTIVITY_CONNECTED', gpuHealth: [], shards: [] })!;
    expect(n.gpus.map((g) => g.powerLimitW)).toEqual([350, undefined]);
  });

  it('skips a node without NodeInfo', () => {
    expect(nodeFromWire({ info: null, connectivity: 'CONNECTIVITY_CONNECTED', gpuHealth: [], shards: [] })).toBeUndefined();
  });
});

describe('shard specs', () => {
  const spec: ShardLaunchSpec = {
    shardId: 'llama-0a1b2c3d-r1',
    replicaId: 'llama-0a1b2c3d',
    model: 'llama',
    profile: 'p',
    engine: 'sglang',
    rank: 1,
    nnodes: 2,
    leaderAddr: '10.0.0.5',
    leaderPort: 20001,
    gpuIndices: [0, 1],
    hcas: ['mlx5_0'],
    fabric: 'ib-a',
    httpPort: 20002,
    modelPath: '/m',
    args: ['--x'],
    env: { A: 'b' },
    tp: 4,
    pp: 1,
    startupTimeoutMs: 60_000,
    servedModelName: 'llama',
  };

  it('round-trips through the wire spec', () => {
    expect(specFromWire(specToWire(spec) as agentV1.ShardSpec__Output)).toEqual(spec);
    const withWeights = { ...spec, weights: { baseUrl: 'https://mirror.internal/m/', manifest: 'manifest.json', credentialsEnv: 'MIRROR_TOKEN' } };
    expect(specFromWire(specToWire(withWeights) as agentV1.ShardSpec__Output)).toEqual(withWeights);
    const withAdapters = {
      ...spec,
      maxLoras: 2,
      adapters: [
        { name: 'sql', scale: 1, weights: { baseUrl: 'https://mirror.internal/a/sql/', manifest: 'manifest.json', credentialsFile: '/etc/t' } },
        { name: 'legal', scale: 0.8, path: '/adapters/legal' },
      ],
    };
    expect(specFromWire(specToWire(withAdapters) as agentV1.ShardSpec__Output)).toEqual(withAdapters);
  });

  it('maps DOWNLOADING to downloading, with the progress in the message', () => {
    const r = shardFromWire('n1', {
      shardId: spec.shardId,
      replicaId: '',
      state: 'SHARD_STATE_DOWNLOADING',
      message: 'downloading weights: 1.0 MiB/4.0 MiB 512.0 KiB/s ETA 6s',
      endpoint: '',
      spec: null,
      adopted: false,
    } as unknown as agentV1.ShardStatus__Output);
    expect(r).toMatchObject({ state: 'downloading', message: 'downloading weights: 1.0 MiB/4.0 MiB 512.0 KiB/s ETA 6s' });
  });

  it('maps a reported status; a spec with an unknown engine is not ours', () => {
    const r = shardFromWire('n1', {
      shardId: spec.shardId,
      replicaId: '',
      state: 'SHARD_STATE_LOADING',
      message: 'loading weights',
      endpoint: '',
      spec: specToWire(spec),
      adopted: true,
    } as unknown as agentV1.ShardStatus__Output);
    expect(r).toMatchObject({ nodeId: 'n1', replicaId: spec.replicaId, state: 'loading', adopted: true, spec });
    expect(specFromWire({ ...(specToWire(spec) as agentV1.ShardSpec__Output), engine: 'tgi' })).toBeUndefined();
  });

  it("carries the agent's structured drained signal", () => {
    const st = {
      shardId: spec.shardId,
      replicaId: spec.replicaId,
      state: 'SHARD_STATE_DRAINING',
      message: 'drained: no requests in flight',
      endpoint: '',
      spec: null,
      adopted: false,
    };
    expect(shardFromWire('n1', { ...st, drained: true } as unknown as agentV1.ShardStatus__Output).drained).toBe(true);
    expect(shardFromWire('n1', { ...st, drained: false } as unknown as agentV1.ShardStatus__Output).drained).toBe(false);
  });
});
