import { ENGINE_RULES, engineContract } from '../engines';
import type { Model, PlacementDecision } from '../types';
import type { ReplicaRec, ShardRec } from './records';
import type { ReconcilerState } from './state';
import type { ReconcilerNode, ShardLaunchSpec, ShardReport } from './types';

/**
 * Ports nobody uses on a node's address: ours and every reported shard's on every node with the
 * same management address (several agents on one host, as `llmgw up` and the tests run them,
 * share one port space).
 */
export function freePorts(st: ReconcilerState, nodeId: string, n: number, taken: Set<number>): number[] {
  const addrOf = new Map(st.view.nodes.map((x) => [x.id, x.mgmtAddr]));
  const here = (id: string) => id === nodeId || (!!addrOf.get(nodeId) && addrOf.get(id) === addrOf.get(nodeId));
  const take = (spec: ShardLaunchSpec) =>
    taken
      .add(spec.httpPort)
      .add(spec.leaderPort)
      .add(spec.kvEventsPort ?? 0)
      .add(spec.kvReplayPort ?? 0);
  for (const r of st.replicas.values()) for (const s of r.shards) if (here(s.nodeId)) take(s.spec);
  for (const rep of st.view.shards) if (here(rep.nodeId) && rep.spec) take(rep.spec);
  const out: number[] = [];
  for (let p = st.o.portRange[0]; p <= st.o.portRange[1] && out.length < n; p++) if (!taken.has(p)) out.push(p);
  if (out.length < n) throw new Error(`no free port left on ${nodeId} in ${st.o.portRange.join('-')}`);
  for (const p of out) taken.add(p);
  return out;
}

export async function launchReplica(
  st: ReconcilerState,
  m: Model,
  d: PlacementDecision,
  nodes: Map<string, ReconcilerNode>,
  now: number,
  token: number,
): Promise<void> {
  const id = st.o.newReplicaId(m.name);
  const p = d.profile;
  const leader = nodes.get(d.shards[0].nodeId)!;
  // Ports handed out in this launch, per management address (two shards on one host never share one).
  const taken = new Map<string, Set<number>>();
  const portsOf = (node: string, n: number) => {
    const key = nodes.get(node)?.mgmtAddr || node;
    const t = taken.get(key) ?? new Set<number>();
    taken.set(key, t);
    return freePorts(st, node, n, t);
  };
  const contract = engineContract(p);
  // The leader's ports: HTTP, then the rendezvous port (multi-node), then KV-event PUB and replay.
  const multi = d.shards.length > 1;
  const leaderPorts = portsOf(leader.id, 1 + (multi ? 1 : 0) + (contract.kvEvents ? 2 : 0));
  const httpPort = leaderPorts[0];
  const leaderPort = multi ? leaderPorts[1] : 0;
  const [kvEventsPort, kvReplayPort] = contract.kvEvents ? leaderPorts.slice(multi ? 2 : 1) : [0, 0];
  const apiKey = st.o.engineSecret?.(id);
  const shards: ShardRec[] = d.shards.map((s) => {
    const spec: ShardLaunchSpec = {
      shardId: `${id}-r${s.rank}`,
      replicaId: id,
      model: m.name,
      profile: p.name,
      engine: p.engine,
      rank: s.rank,
      nnodes: d.shards.length,
      leaderAddr: leader.mgmtAddr,
      leaderPort,
      gpuIndices: s.gpuIndices,
      hcas: s.hcas,
      fabric: d.fabric,
      httpPort: s.rank === 0 ? httpPort : portsOf(s.nodeId, 1)[0],
      modelPath: m.source,
      args: p.args,
      env: p.env,
      tp: p.tp,
      pp: p.pp,
      startupTimeoutMs: p.startupTimeoutMs,
      ...(p.launchMode ? { launchMode: p.launchMode } : {}),
      servedModelName: m.name,
      maxNumSeqs: contract.maxNumSeqs,
      schedulingPolicy: contract.schedulingPolicy,
      kvEventsPort: s.rank === 0 ? kvEventsPort : 0,
      kvReplayPort: s.rank === 0 ? kvReplayPort : 0,
      ...(apiKey ? { apiKey } : {}),
      ...(m.weights ? { weights: m.weights } : {}),
      ...(m.adapters?.length ? { adapters: m.adapters } : {}),
      ...(m.maxLoadedAdapters ? { maxLoras: m.maxLoadedAdapters } : {}),
    };
    return { spec, nodeId: s.nodeId, state: 'unreported', message: '', endpoint: '', sinceMs: now, stopSent: false, drained: false };
  });
  const r: ReplicaRec = {
    id,
    model: m.name,
    profile: p,
    fabric: d.fabric,
    gpuClass: d.gpuClass,
    pool: d.pool,
    state: 'starting',
    shards,
    createdAtMs: now,
    readyAtMs: 0,
    adopted: false,
    message: '',
    drainStartedAtMs: 0,
    drainTimeoutMs: st.o.drainTimeoutMs,
    evacuating: false,
  };
  st.replicas.set(id, r);
  st.o.log?.info({ replica: id, model: m.name, profile: p.name, fabric: d.fabric || undefined, nodes: d.shards.map((s) => s.nodeId) }, 'placing a replica');
  const order = ENGINE_RULES[p.engine].startOrder === 'workers-first' ? [...shards.slice(1), shards[0]] : shards;
  for (const s of order) {
    try {
      await st.o.sink.start(s.nodeId, s.spec, token);
    } catch (e) {
      r.state = 'failed';
      r.message = `StartShard ${s.spec.shardId} on ${s.nodeId} failed: ${(e as Error).message}`;
      const b = st.backoff.get(m.name) ?? { failures: 0, notBeforeMs: 0 };
      st.backoff.set(m.name, { failures: b.failures + 1, notBeforeMs: now + Math.min(st.o.backoffMaxMs, st.o.backoffBaseMs * 2 ** b.failures) });
      st.o.log?.warn({ replica: id, err: (e as Error).message }, 'start failed; the replica will be stopped and re-placed');
      return;
    }
  }
}

export function adoptReplica(st: ReconcilerState, id: string, reps: ShardReport[], m: Model, now: number): void {
  const specs = reps.map((r) => r.spec!).sort((a, b) => a.rank - b.rank);
  const p = m.profiles.find((x) => x.name === specs[0].profile)!;
  const nn = specs[0].nnodes;
  const shards: ShardRec[] = [];
  for (let rank = 0; rank < nn; rank++) {
    const rep = reps.find((r) => r.spec!.rank === rank);
    if (rep)
      shards.push({
        spec: rep.spec!,
        nodeId: rep.nodeId,
        state: rep.state,
        message: rep.message,
        endpoint: rep.endpoint,
        sinceMs: now,
        stopSent: false,
        drained: rep.state === 'draining' && !!rep.drained,
      });
  }
  const missing = nn - shards.length;
  const ready = !missing && shards.every((s) => s.state === 'ready') && !!shards[0].endpoint;
  const fabric = specs[0].fabric;
  st.replicas.set(id, {
    id,
    model: m.name,
    profile: p,
    fabric,
    gpuClass: p.gpuClass,
    pool: fabric ? `${p.gpuClass}/${fabric}` : p.gpuClass,
    state: missing ? 'failed' : ready ? 'ready' : 'starting',
    shards,
    createdAtMs: now,
    readyAtMs: ready ? now : 0,
    adopted: true,
    message: missing ? `adopted with ${missing} of ${nn} shards missing` : 'adopted from the fleet',
    drainStartedAtMs: 0,
    drainTimeoutMs: st.o.drainTimeoutMs,
    evacuating: false,
  });
  st.o.log?.info({ replica: id, model: m.name, shards: shards.length, of: nn }, 'adopted a replica the fleet reports');
}
