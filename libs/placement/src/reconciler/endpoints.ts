import type { ReplicaRec } from './records';
import type { PlacedEndpoint } from './types';
import type { AppliedCapacity } from '../types';
import { DIALECT_OF_KIND } from '@llmgw/contracts';

/** The engines' metric vocabulary: sim-engine speaks vLLM's names. */

/**
 * The published set: Ready replicas that are not draining, each as the
 * endpoint record routers and admission read (what rank 0 runs with: its
 * batch slots, scheduling policy, KV-event sockets on the endpoint's host,
 * and whether it wants the replica's engine secret). A profile with applied
 * capacity (docs/capacity.md "Applying a profile") publishes its measured
 * weight and admission's target waiting instead of the catalog's weight.
 */
export function publishedEndpoints(
  replicas: Iterable<ReplicaRec>,
  withKey: boolean,
  applied: ReadonlyMap<string, AppliedCapacity> = new Map(),
): PlacedEndpoint[] {
  const out: PlacedEndpoint[] = [];
  for (const r of replicas) {
    if (r.state !== 'ready') continue;
    const cap = applied.get(r.model)?.profiles.find((p) => p.profile === r.profile.name);
    const lead = r.shards[0];
    const spec = lead.spec;
    const host = hostOf(lead.endpoint);
    out.push({
      id: r.id,
      url: lead.endpoint,
      model: r.model,
      engine: DIALECT_OF_KIND[r.profile.engine],
      pool: r.pool,
      priority: r.profile.priority,
      weight: cap?.weight ?? r.profile.weight,
      ...(cap ? { targetWaiting: cap.targetWaitingPerReplica } : {}),
      draining: false,
      ...(spec.schedulingPolicy === 'priority' ? { schedulingPolicy: 'priority' as const } : {}),
      ...(spec.maxNumSeqs ? { maxNumSeqs: spec.maxNumSeqs } : {}),
      ...(spec.kvEventsPort && host
        ? {
            kvEvents: {
              endpoint: `tcp://${host}:${spec.kvEventsPort}`,
              ...(spec.kvReplayPort ? { replayEndpoint: `tcp://${host}:${spec.kvReplayPort}` } : {}),
            },
          }
        : {}),
      ...(withKey ? { auth: 'replica-key' as const } : {}),
      fabric: r.fabric,
      gpuClass: r.gpuClass,
    });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The host of an HTTP base URL as it goes into tcp://host:port ("[::1]" for IPv6); '' when unparsable. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
