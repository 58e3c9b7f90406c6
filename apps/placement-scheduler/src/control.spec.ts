import * as grpc from '@grpc/grpc-js';
import { parseCatalog } from '@llmgw/config';
import { loadProto, type agentV1, type controlV1 } from '@llmgw/contracts';
import { isLlmgwError } from '@llmgw/errors';
import { callUnary, createServer, listen, makeClient, shutdown } from '@llmgw/grpc';
import { createLogger } from '@llmgw/observability';
import { SimFleet, type PlacedEndpoint, type ReconcilerNode } from '@llmgw/placement';
import { controlModelHandlers, ModelAdmin, type AuditRecord } from '@llmgw/control-rpc';
import { MemoryAppliedCapacityStore } from './applied-store';
import { specToWire, type InventoryNodeLike } from './fleet-map';
import { PlacementScheduler, type FleetSource } from './scheduler';

/** The SimFleet as inventory would send it (wire shapes), so the scheduler's mapping runs too. */
function wireNodes(sim: SimFleet): InventoryNodeLike[] {
  return [...sim.nodes.values()].map((n: ReconcilerNode) => ({
    info: {
      nodeId: n.id,
      hostname: n.id,
      mgmtAddr: n.mgmtAddr,
      labels: {},
      gpus: n.gpus.map((g) => ({
        index: g.index,
        uuid: `GPU-${n.id}-${g.index}`,
        name: 'NVIDIA H100 80GB HBM3',
        memoryTotalMib: 81559,
        pciBusId: '',
        numaNode: g.numaNode,
        computeCapability: g.computeCapability,
        gpuClass: g.gpuClass,
        nvlinkPeers: [],
      })),
      hcas: n.hcas.map((h) => ({
        name: h.name,
        pciBusId: '',
        numaNode: h.numaNode,
        ports: [
          {
            port: 1,
            state: h.active ? 'PORT_STATE_ACTIVE' : 'PORT_STATE_DOWN',
            physState: '',
            rateGbps: 400,
            linkLayer: 'LINK_LAYER_INFINIBAND',
            gidPrefix: '',
            lid: 1,
            smLid: 1,
          },
        ],
      })),
      fabrics: n.fabrics.map((f) => ({ fabric: f.name, hcas: [...f.hcas], rateGbps: 400, source: 'FABRIC_SOURCE_LABEL' })),
      topology: { nvlinkGroups: n.nvlinkGroups.map((g) => ({ gpuIndices: [...g] })), numaNodes: 2, source: 'sim' },
      versions: null,
      cpuCores: 64,
      memoryTotalMib: 1_000_000,
      simulated: true,
    } as unknown as agentV1.NodeInfo__Output,
    connectivity: n.condition === 'ready' ? 'CONNECTIVITY_CONNECTED' : n.condition === 'lost' ? 'CONNECTIVITY_LOST' : 'CONNECTIVITY_UNREACHABLE',
    gpuHealth: [],
    intent: n.draining ? 'NODE_INTENT_DRAINING' : n.cordoned ? 'NODE_INTENT_CORDONED' : 'NODE_INTENT_UNSPECIFIED',
    shards: [...sim.shards.values()]
      .filter((s) => s.nodeId === n.id)
      .map((s) => ({
        shardId: s.shardId,
        replicaId: s.replicaId,
        state: `SHARD_STATE_${s.state.toUpperCase()}`,
        stateSinceMs: 0,
        message: s.message,
        exitCode: 0,
        exited: false,
        pid: 1,
        endpoint: s.endpoint,
        spec: s.spec ? (specToWire(s.spec) as agentV1.ShardSpec__Output) : null,
        adopted: s.adopted,
      })) as unknown as agentV1.ShardStatus__Output[],
  }));
}

const catalog = parseCatalog({
  models: [
    {
      name: 'llama',
      aliases: ['l3'],
      source: '/m/llama',
      scaling: { min: 1, max: 2 },
      profiles: [{ name: 'h100-tp2', gpu_class: 'h100-80g', engine: 'sim', tp: 2 }],
    },
    {
      name: 'big',
      source: '/m/big',
      scaling: { min: 0, max: 1, idle_timeout: '1m' },
      profiles: [{ name: 'two-node', gpu_class: 'h100-80g', engine: 'sim', tp: 16, nodes: 2 }],
    },
    { name: 'a100-only', source: '/m/x', scaling: { min: 1 }, profiles: [{ name: 'a100', gpu_class: 'a100-80g', engine: 'vllm', tp: 1 }] },
  ],
});

describe('ControlService model half over gRPC', () => {
  const sim = new SimFleet([
    { id: 'n1', fabrics: ['ib-a'] },
    { id: 'n2', fabrics: ['ib-b'] },
  ]);
  const fleet: FleetSource = { synced: () => true, nodes: () => wireNodes(sim), onChange: () => undefined, close: () => undefined };
  const log = createLogger({ service: 'placement-scheduler-test', version: '0', instanceId: 't', level: 'silent' });
  let published: readonly PlacedEndpoint[] = [];
  const publisher = { publish: async (l: readonly PlacedEndpoint[]) => void (published = l) };
  const applied = new MemoryAppliedCapacityStore();
  const audits: AuditRecord[] = [];
  const scheduler = new PlacementScheduler({ catalog, fleet, sink: sim, publisher, applied, leadership: { fencingToken: 1 }, log });
  let server: grpc.Server;
  let client: grpc.Client;
  const call = <T>(m: string, req: unknown) => callUnary<T>(client, m, req, { deadlineMs: 10_000 });

  beforeAll(async () => {
    server = createServer();
    const svc = loadProto('llmgw/control/v1/control.proto').llmgw.control.v1.ControlService;
    server.addService(svc.service, controlModelHandlers(new ModelAdmin(catalog, scheduler), { log, audit: { record: (ev) => audits.push(ev) } }));
    const port = await listen(server, '127.0.0.1', 0);
    client = makeClient(svc as unknown as new (a: string, c: grpc.ChannelCredentials) => grpc.Client, `127.0.0.1:${port}`);
    await scheduler.tick();
    sim.readyAll();
    await scheduler.tick();
  });

  afterAll(async () => {
    scheduler.close();
    client.close();
    await shutdown(server, 1000);
  });

  it('ListModels: every model with mode, scaling and replica counts', async () => {
    const r = await call<controlV1.ListModelsResponse__Output>('ListModels', {});
    expect(r.models.map((m) => [m.name, m.scalingMode, m.replicasReady, m.replicasDesired])).toEqual([
      ['a100-only', 'always-on', 0, 1],
      ['big', 'on-demand', 0, 0],
      ['llama', 'always-on', 1, 1],
    ]);
    expect(r.models[2].profiles[0]).toMatchObject({ name: 'h100-tp2', tensorParallel: 2, gpusPerNode: 2, engine: 'sim' });
  });

  it('ListReplicas: by model name or alias, with shards, endpoint and state', async () => {
    const r = await call<controlV1.ListReplicasResponse__Output>('ListReplicas', { model: 'l3' });
    expect(r.replicas).toHaveLength(1);
    expect(r.replicas[0]).toMatchObject({ model: 'llama', profile: 'h100-tp2', state: 'REPLICA_STATE_READY', gpuClass: 'h100-80g' });
    expect(r.replicas[0].endpoint).toMatch(/^http:\/\/10\.0\.0\.\d+:20000$/);
    expect(r.replicas[0].shards[0]).toMatchObject({ rank: 0, state: 'SHARD_STATE_READY', gpuIndices: [0, 1] });
  });

  it('ExplainPlacement: why a model is not placed, per pool and node', async () => {
    const r = await call<controlV1.ExplainPlacementResponse__Output>('ExplainPlacement', { model: 'big', profile: '' });
    expect(r.schedulable).toBe(false);
    expect(r.profiles[0].pools.map((p) => [p.pool, p.reason])).toEqual([
      ['h100-80g/ib-a', 'REJECT_REASON_NOT_ENOUGH_NODES'],
      ['h100-80g/ib-b', 'REJECT_REASON_NOT_ENOUGH_NODES'],
    ]);
    const a = await call<controlV1.ExplainPlacementResponse__Output>('ExplainPlacement', { model: 'a100-only', profile: '' });
    expect(a.profiles[0]).toMatchObject({ reason: 'REJECT_REASON_GPU_CLASS' });
    const ok = await call<controlV1.ExplainPlacementResponse__Output>('ExplainPlacement', { model: 'llama', profile: '' });
    expect(ok.schedulable).toBe(true);
    expect(ok.decision!.shards[0].nodeId).toBe('n2');
  });

  it('SetModelTarget: overrides and clears; bad input gets a clear status', async () => {
    const set = await call<controlV1.SetModelTargetResponse__Output>('SetModelTarget', { model: 'llama', minReplicas: 2, maxReplicas: 2, clear: false });
    expect(set).toMatchObject({ changed: true, model: { scalingOverridden: true, replicasDesired: 2, scaling: { minReplicas: 2, maxReplicas: 2 } } });
    const again = await call<controlV1.SetModelTargetResponse__Output>('SetModelTarget', { model: 'llama', minReplicas: 2, maxReplicas: 2, clear: false });
    expect(again.changed).toBe(false);
    const cleared = await call<controlV1.SetModelTargetResponse__Output>('SetModelTarget', { model: 'llama', clear: true });
    expect(cleared.model!.scalingOverridden).toBe(false);
    await expect(call('SetModelTarget', { model: 'llama', minReplicas: 3, maxReplicas: 1 })).rejects.toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT' });
    await expect(call('ExplainPlacement', { model: 'nope' })).rejects.toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND' });
    const err = await call('ExplainPlacement', { model: '' }).catch((e: unknown) => e);
    expect(isLlmgwError(err) && err.code === 'LLMGW_ERR_INVALID_ARGUMENT' && /model is required/.test(err.message)).toBe(true);
  });

  it('SetModelTarget with applied capacity: weights and target waiting published, the autoscaler target in force, min/max kept, one audit record; kept across a restart; cleared', async () => {
    const cap = {
      profiles: [{ profile: 'h100-tp2', weight: 40, targetWaitingPerReplica: 3, maxConcurrencyAtSlo: 24, gpuClass: 'h100-80g' }],
      targetWaitingPerReplica: 3,
    };
    const r = await call<controlV1.SetModelTargetResponse__Output>('SetModelTarget', { model: 'l3', keepReplicas: true, appliedCapacity: cap });
    expect(r.changed).toBe(true);
    expect(r.model).toMatchObject({ scalingOverridden: false, scaling: { minReplicas: 1, maxReplicas: 2, targetWaitingPerReplica: 3 }, appliedCapacity: cap });
    await scheduler.tick();
    expect(published.filter((e) => e.model === 'llama').map((e) => [e.weight, e.targetWaiting])).toEqual([[40, 3]]);
    expect(audits.at(-1)).toMatchObject({ action: 'model.capacity.apply', targetId: 'llama', details: { capacity: cap, changed: true } });
    expect(audits.at(-1)!.details.min).toBeUndefined();
    expect((await call<controlV1.SetModelTargetResponse__Output>('SetModelTarget', { model: 'llama', keepReplicas: true, appliedCapacity: cap })).changed).toBe(
      false,
    );

    // A scheduler started on the same store publishes the same weights.
    const again = new PlacementScheduler({
      catalog,
      fleet,
      sink: sim,
      publisher: { publish: async () => undefined },
      applied,
      leadership: { fencingToken: 1 },
      log,
    });
    await again.start();
    expect(again.reconciler.applied('llama')).toMatchObject(cap);
    again.close();

    const bad = (profiles: unknown[]) =>
      call('SetModelTarget', { model: 'llama', keepReplicas: true, appliedCapacity: { profiles, targetWaitingPerReplica: 1 } });
    await expect(bad([{ ...cap.profiles[0], profile: 'nope' }])).rejects.toMatchObject({
      code: 'LLMGW_ERR_INVALID_ARGUMENT',
      message: expect.stringMatching(/has no profile "nope"/),
    });
    await expect(bad([{ ...cap.profiles[0], weight: 0 }])).rejects.toMatchObject({ code: 'LLMGW_ERR_INVALID_ARGUMENT' });
    await expect(bad([cap.profiles[0], cap.profiles[0]])).rejects.toMatchObject({
      code: 'LLMGW_ERR_INVALID_ARGUMENT',
      message: expect.stringMatching(/twice/),
    });

    const cleared = await call<controlV1.SetModelTargetResponse__Output>('SetModelTarget', { model: 'llama', keepReplicas: true, clearCapacity: true });
    expect(cleared.model!.appliedCapacity).toBeNull();
    expect(cleared.model!.scaling!.targetWaitingPerReplica).toBe(0);
    await scheduler.tick();
    expect(published.filter((e) => e.model === 'llama').map((e) => [e.weight, e.targetWaiting])).toEqual([[100, undefined]]);
    expect(audits.at(-1)).toMatchObject({ action: 'model.capacity.clear', details: { capacityCleared: true, changed: true } });
    expect(await applied.load()).toEqual(new Map());
  });
});
