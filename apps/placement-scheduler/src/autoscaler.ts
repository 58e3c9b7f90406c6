/**
 * The autoscaler's decisions (docs/capacity.md "The autoscaler"): per model,
 * the requests admission holds queued per Ready replica, averaged over a
 * window, against the model's `scaling.target_waiting_per_replica`. A replica
 * is added while the average is above the target (up to the model's max),
 * one at a time and not before the last one added is Ready and the up
 * cooldown has passed; one is taken back once, for the quiet period,
 * nothing has waited and what runs would have fit on one replica fewer
 * (DOWN_HEADROOM of its declared slots), and the down cooldown has passed
 * since any scale event.
 * Pure: the clock and the readings are inputs.
 */

export interface AutoscalerSettings {
  /** Averaging window of waiting per replica, ms. */
  windowMs: number;
  /** Least time between two scale-ups, ms. */
  upCooldownMs: number;
  /** Least time after any scale event before a scale-down, ms. */
  downCooldownMs: number;
  /** How long nothing may have waited before a replica is taken back, ms. */
  quietPeriodMs: number;
}

/** One reading for one model. */
export interface ModelLoad {
  model: string;
  /** Requests admission holds queued for the model. */
  queued: number;
  /** Replicas Ready, and all live ones (starting included). */
  ready: number;
  live: number;
  /** Replicas the catalog and targets want without the autoscaler (min, or on demand 1). */
  base: number;
  min: number;
  max: number;
  /** scaling.target_waiting_per_replica; 0 = the autoscaler leaves the model alone. */
  target: number;
  /** Requests the Ready replicas' engines run now, and the sequences one replica runs at once (max_num_seqs; 0 = not declared). */
  running?: number;
  slotsPerReplica?: number;
}

/** A replica is taken back only when what runs would fill at most this share of the replicas left. */
export const DOWN_HEADROOM = 0.8;

export interface Decision {
  model: string;
  action: 'up' | 'down' | 'hold';
  from: number;
  to: number;
  /** "scaling up: 38 waiting per replica, target 8". */
  reason: string;
  atMs: number;
  inputs: {
    queued: number;
    ready: number;
    live: number;
    running: number;
    waitingPerReplica: number;
    windowAvg: number;
    samples: number;
    target: number;
    min: number;
    max: number;
    quietForMs: number;
  };
}

interface ModelState {
  samples: Array<{ atMs: number; perReplica: number }>;
  /** Replicas the autoscaler wants; undefined until it first decides. */
  desired?: number;
  lastUpMs: number;
  lastEventMs: number;
  /** Last time a request was seen waiting (or the state began). */
  lastBusyMs: number;
  last?: Decision;
  lastChange?: Decision;
}

const round1 = (x: number) => Math.round(x * 10) / 10;

export class Autoscaler {
  private readonly models = new Map<string, ModelState>();

  constructor(readonly s: AutoscalerSettings) {}

  /** Replicas to run: the autoscaler's count within min/max, never below the base. */
  desired(model: string, base: number, max: number): number {
    const d = this.models.get(model)?.desired;
    return d === undefined ? base : Math.min(max, Math.max(base, d));
  }

  /** The latest decision (holds included). */
  lastDecision(model: string): Decision | undefined {
    return this.models.get(model)?.last;
  }

  /** The latest decision that scaled up or down. */
  lastChange(model: string): Decision | undefined {
    return this.models.get(model)?.lastChange;
  }

  /** Forgets a model (removed from the catalog, or its target set to 0). */
  forget(model: string): void {
    this.models.delete(model);
  }

  /** Takes one reading and decides. */
  observe(l: ModelLoad, now: number): Decision {
    let st = this.models.get(l.model);
    if (!st) {
      st = { samples: [], lastUpMs: -Infinity, lastEventMs: -Infinity, lastBusyMs: now };
      this.models.set(l.model, st);
    }
    const perReplica = l.queued / Math.max(1, l.ready);
    st.samples.push({ atMs: now, perReplica });
    while (st.samples.length && st.samples[0].atMs <= now - this.s.windowMs) st.samples.shift();
    const avg = st.samples.reduce((a, x) => a + x.perReplica, 0) / st.samples.length;
    // Busy: something waits, or what runs would not fit on one replica fewer (so taking one back would make requests wait).
    const fitsOnFewer = !l.slotsPerReplica || (l.running ?? 0) <= Math.max(0, l.ready - 1) * l.slotsPerReplica * DOWN_HEADROOM;
    if (l.queued > 0 || !fitsOnFewer) st.lastBusyMs = now;
    const from = Math.min(l.max, Math.max(l.base, st.desired ?? l.live, l.min));
    const inputs = {
      queued: l.queued,
      ready: l.ready,
      live: l.live,
      running: l.running ?? 0,
      waitingPerReplica: round1(perReplica),
      windowAvg: round1(avg),
      samples: st.samples.length,
      target: l.target,
      min: l.min,
      max: l.max,
      quietForMs: now - st.lastBusyMs,
    };
    const decide = (action: Decision['action'], to: number, reason: string): Decision => {
      const d: Decision = { model: l.model, action, from, to, reason, atMs: now, inputs };
      st!.desired = to;
      if (action !== 'hold') {
        st!.lastEventMs = now;
        if (action === 'up') st!.lastUpMs = now;
        st!.lastChange = d;
      }
      st!.last = d;
      return d;
    };
    const load = `${round1(avg)} waiting per replica over ${Math.round(this.s.windowMs / 1000)} s, target ${l.target}`;
    if (avg > l.target) {
      if (from >= l.max) return decide('hold', from, `at max ${l.max}: ${load}`);
      if (l.ready < from) return decide('hold', from, `waiting for the replica added to be ready: ${load}`);
      if (now - st.lastUpMs < this.s.upCooldownMs) return decide('hold', from, `up cooldown: ${load}`);
      return decide('up', from + 1, `scaling up: ${load}`);
    }
    const floor = Math.max(l.base, l.min);
    if (from > floor) {
      const quietFor = now - st.lastBusyMs;
      if (quietFor < this.s.quietPeriodMs)
        return decide('hold', from, `holding ${from}: quiet for ${Math.round(quietFor / 1000)} s of ${Math.round(this.s.quietPeriodMs / 1000)} s`);
      if (now - st.lastEventMs < this.s.downCooldownMs) return decide('hold', from, `down cooldown: quiet for ${Math.round(quietFor / 1000)} s`);
      return decide(
        'down',
        from - 1,
        `scaling down: quiet for ${Math.round(quietFor / 1000)} s (nothing waited, ${l.running ?? 0} running fits on ${from - 1})`,
      );
    }
    return decide('hold', from, `steady: ${load}`);
  }
}
