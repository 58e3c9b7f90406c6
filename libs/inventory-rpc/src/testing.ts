import type { FleetNode } from './fleet-view';

/**
 * Test builders for the fleet's node records (`@llmgw/inventory-rpc/testing`): the specs of
 * inventory-rpc, control-rpc and the inventory service build nodes and shards the same way.
 */

/** A connected, simulated node with no GPUs, no shards and no operator intent; `over` replaces any field. */
export function fleetNode(over: Partial<FleetNode> = {}, id = 'n'): FleetNode {
  return {
    info: {
      nodeId: id,
      hostname: id,
      mgmtAddr: '',
      labels: {},
      gpus: [],
      hcas: [],
      fabrics: [],
      topology: null,
      versions: null,
      cpuCores: 0,
      memoryTotalMib: 0,
      simulated: true,
      diskFreeMib: 0,
      diskTotalMib: 0,
      modelCacheDir: '',
      cpuModel: '',
      discoveryWarnings: [],
    },
    connectivity: 'CONNECTIVITY_CONNECTED',
    connectivityReason: 'registered',
    connectivitySinceMs: 10,
    lastSeenMs: 0,
    registeredAtMs: 0,
    sessionId: 's',
    peerCn: '',
    gpuHealth: [],
    shards: [],
    intent: 'NODE_INTENT_UNSPECIFIED',
    intentReason: '',
    intentSinceMs: 0,
    intentDrainTimeoutMs: 0,
    intentActor: '',
    instanceId: 'i',
    heartbeatIntervalMs: 5000,
    hostSensors: null,
    ...over,
  };
}

type Shard = FleetNode['shards'][number];

/**
 * Shard `id` (replica: the part before the first '-') in `state`; with `gpus`, a spec placing it
 * on them; `over` replaces any field. Typed loosely on purpose: specs take fields away or put
 * partial specs in.
 */
export function fleetShard(id: string, state: string, gpus?: number[], over: Partial<Shard> = {}): any {
  const replicaId = id.split('-')[0];
  return {
    shardId: id,
    replicaId,
    state: state as Shard['state'],
    stateSinceMs: 0,
    message: '',
    exitCode: 0,
    exited: false,
    pid: 0,
    endpoint: '',
    adopted: false,
    pgid: 0,
    restarts: 0,
    drained: false,
    download: null,
    spec: gpus ? ({ shardId: id, replicaId, model: 'm', gpuIndices: gpus } as Shard['spec']) : null,
    ...over,
  } as Shard;
}
