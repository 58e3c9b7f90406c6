/**
 * `llmgw_capacity_profile_stale{model,profile}` (docs/capacity.md): 1 when a
 * Ready replica of (model, profile) runs an engine version or launch
 * arguments other than the ones its stored capacity profile was measured
 * with, so a measurement is never silently reused for a different engine.
 * The leader reads the stored profiles from accounting (CapacityAdmin) and
 * compares them with what the agents report.
 */
import { Gauge, type Registry } from 'prom-client';
import type { accountingV1 } from '@llmgw/contracts';
import type { Logger } from '@llmgw/observability';
import type { InventoryNodeLike } from './fleet-map';

/** What a stored profile was measured with. */
export interface StoredProfile {
  model: string;
  profile: string;
  engine: string;
  engineVersion: string;
  engineArgs: readonly string[];
}

/** A Ready leader shard as the fleet reports it. */
export interface RunningReplica {
  replicaId: string;
  model: string;
  profile: string;
  engine: string;
  engineVersion: string;
  args: readonly string[];
}

/** Every Ready leader shard, with its node's version of its engine. */
export function runningReplicas(nodes: Iterable<InventoryNodeLike>): RunningReplica[] {
  const out: RunningReplica[] = [];
  for (const n of nodes) {
    for (const s of n.shards) {
      const spec = s.spec;
      if (!spec || spec.rank !== 0 || s.state !== 'SHARD_STATE_READY') continue;
      const version = n.info?.versions?.engines.find((e) => e.engine === spec.engine)?.version ?? '';
      out.push({ replicaId: spec.replicaId, model: spec.model, profile: spec.profile, engine: spec.engine, engineVersion: version, args: spec.args });
    }
  }
  return out;
}

/** Why each stored profile is stale ("" when it is not), keyed "model/profile". */
export function staleness(stored: readonly StoredProfile[], running: readonly RunningReplica[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of stored) {
    const mine = running.filter((r) => r.model === p.model && r.profile === p.profile);
    const why = mine
      .map((r) => {
        if (p.engine && r.engine !== p.engine) return `replica ${r.replicaId} runs ${r.engine}, measured on ${p.engine}`;
        if (r.engineVersion !== p.engineVersion)
          return `replica ${r.replicaId} runs ${r.engine} ${r.engineVersion || '(unknown)'}, measured on ${p.engineVersion || '(unknown)'}`;
        if (JSON.stringify(r.args) !== JSON.stringify(p.engineArgs))
          return `replica ${r.replicaId} runs with arguments "${r.args.join(' ')}", measured with "${p.engineArgs.join(' ')}"`;
        return '';
      })
      .find(Boolean);
    out.set(`${p.model}/${p.profile}`, why ?? '');
  }
  return out;
}

export interface StaleCheckOptions {
  list: () => Promise<accountingV1.ListCapacityProfilesResponse__Output>;
  nodes: () => Iterable<InventoryNodeLike>;
  leader: () => boolean;
  log: Logger;
  registry: Registry;
  intervalMs: number;
}

/** The periodic check on the leader; the gauge is reset to what the last read found. */
export class CapacityStaleCheck {
  private readonly gauge: Gauge;
  private timer?: NodeJS.Timeout;
  private reported = new Map<string, string>();

  constructor(private readonly o: StaleCheckOptions) {
    this.gauge = new Gauge({
      name: 'llmgw_capacity_profile_stale',
      help: '1 when a Ready replica runs another engine version or other arguments than its stored capacity profile was measured with (ctl bench --save again)',
      labelNames: ['model', 'profile'],
      registers: [o.registry],
    });
  }

  start(): void {
    this.timer = setInterval(() => void this.check(), this.o.intervalMs);
    this.timer.unref();
    void this.check();
  }

  async check(): Promise<Map<string, string> | undefined> {
    if (!this.o.leader()) return undefined;
    let r: accountingV1.ListCapacityProfilesResponse__Output;
    try {
      r = await this.o.list();
    } catch (e) {
      this.o.log.debug({ err: (e as Error).message }, 'capacity profiles: cannot read them from accounting');
      return undefined;
    }
    const result = staleness(r.profiles, runningReplicas(this.o.nodes()));
    this.gauge.reset();
    for (const [key, why] of result) {
      const [model, profile] = [key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1)];
      this.gauge.set({ model, profile }, why ? 1 : 0);
      if (why && this.reported.get(key) !== why)
        this.o.log.warn({ model, profile, reason: why }, 'capacity profile is stale; measure again with llmgw ctl bench --save');
    }
    this.reported = result;
    return result;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
