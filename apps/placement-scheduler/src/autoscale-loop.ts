/**
 * The autoscaler in the placement-scheduler (docs/capacity.md): on the
 * leader, every `autoscaler.interval`, reads what admission holds queued per
 * model (Status, from the admission leader — one read for every router), adds
 * what the model's engines report waiting (requests routers admitted on
 * credit that wait inside an engine, from the agents' stats) and
 * hands each model with a `scaling.target_waiting_per_replica` to the
 * Autoscaler; the reconciler then places or drains towards its count. Every
 * decision is logged with its inputs and counted.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Catalog } from '@llmgw/config';
import type { Logger } from '@llmgw/observability';
import type { Model, Reconciler } from '@llmgw/placement';
import type { admissionV1 } from '@llmgw/contracts';
import { Autoscaler, type Decision } from './autoscaler';

export interface AutoscaleLoopOptions {
  autoscaler: Autoscaler;
  catalog: Catalog;
  reconciler: () => Reconciler;
  /** Admission's Status from its leader (AdmissionRpcClient.findServing + status). */
  admissionStatus: () => Promise<admissionV1.StatusResponse__Output | undefined>;
  leader: () => boolean;
  /** What the replica's engine reports queued (past admission on a router's credit, waiting there) and running. */
  engineLoad?: (replicaId: string) => { waiting: number; running: number };
  /** Asks for a reconcile pass now (after a decision that changed a count). */
  reconcileSoon: () => void;
  log: Logger;
  registry?: Registry;
  intervalMs: number;
  now?: () => number;
}

export class AutoscaleLoop {
  private timer?: NodeJS.Timeout;
  private running = false;
  private readonly now: () => number;
  private readonly metrics?: ReturnType<typeof makeMetrics>;
  private warned = false;

  constructor(private readonly o: AutoscaleLoopOptions) {
    this.now = o.now ?? Date.now;
    if (o.registry) this.metrics = makeMetrics(o.registry);
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.o.intervalMs);
    this.timer.unref();
  }

  /** The models the autoscaler acts on. */
  scaled(): Model[] {
    const rec = this.o.reconciler();
    return this.o.catalog.models.filter((m) => rec.scalingOf(m).targetWaitingPerReplica > 0);
  }

  /** One reading and a decision per scaled model; none when not the leader or admission cannot be read. */
  async tick(): Promise<Decision[]> {
    if (this.running || !this.o.leader()) return [];
    const models = this.scaled();
    if (!models.length) return [];
    this.running = true;
    try {
      const status = await this.o.admissionStatus().catch((e: Error) => {
        if (!this.warned) this.o.log.warn({ err: e.message }, 'autoscaler: cannot read admission; replica counts held');
        this.warned = true;
        return undefined;
      });
      if (!status?.serving) return [];
      this.warned = false;
      const byModel = new Map(status.models.map((q) => [q.model, q]));
      const rec = this.o.reconciler();
      const views = rec.replicaViews();
      const now = this.now();
      const out: Decision[] = [];
      for (const m of models) {
        const s = rec.scalingOf(m);
        const mine = views.filter((v) => v.model === m.name);
        const readyIds = mine.filter((v) => v.state === 'ready').map((v) => v.id);
        const engines = readyIds.map((id) => this.o.engineLoad?.(id) ?? { waiting: 0, running: 0 });
        const inEngines = engines.reduce((n, e) => n + e.waiting, 0);
        const slots = Math.min(...m.profiles.map((p) => p.maxNumSeqs ?? 0));
        const d = this.o.autoscaler.observe(
          {
            model: m.name,
            queued: (byModel.get(m.name)?.queued ?? 0) + inEngines,
            ready: mine.filter((v) => v.state === 'ready').length,
            live: mine.filter((v) => v.state === 'ready' || v.state === 'starting').length,
            base: rec.baseDesired(m),
            min: s.min,
            max: s.max,
            target: s.targetWaitingPerReplica,
            running: engines.reduce((n, e) => n + e.running, 0),
            slotsPerReplica: Number.isFinite(slots) ? slots : 0,
          },
          now,
        );
        out.push(d);
        this.metrics?.waiting.set({ model: m.name }, d.inputs.windowAvg);
        this.metrics?.desired.set({ model: m.name }, d.to);
        if (d.action === 'hold') {
          this.o.log.debug({ model: m.name, decision: d.action, reason: d.reason, inputs: d.inputs }, 'autoscaler');
          continue;
        }
        this.metrics?.decisions.inc({ model: m.name, direction: d.action });
        this.o.log.info(
          { model: m.name, decision: d.action, from: d.from, to: d.to, reason: d.reason, inputs: d.inputs },
          `autoscaler: ${d.reason} (${d.from} -> ${d.to} replicas)`,
        );
      }
      if (out.some((d) => d.action !== 'hold')) this.o.reconcileSoon();
      return out;
    } finally {
      this.running = false;
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

function makeMetrics(registry: Registry) {
  return {
    decisions: new Counter({
      name: 'llmgw_autoscaler_decisions_total',
      help: 'Autoscaler scale events by model and direction (up, down)',
      labelNames: ['model', 'direction'],
      registers: [registry],
    }),
    waiting: new Gauge({
      name: 'llmgw_autoscaler_waiting_per_replica',
      help: 'Requests queued in admission per Ready replica, averaged over the autoscaler window',
      labelNames: ['model'],
      registers: [registry],
    }),
    desired: new Gauge({
      name: 'llmgw_autoscaler_desired_replicas',
      help: 'Replicas the autoscaler wants for the model',
      labelNames: ['model'],
      registers: [registry],
    }),
  };
}
