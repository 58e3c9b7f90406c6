import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { Picker, SchedRequest, ScoredEndpoint } from '../types';

/** Totals closer than this are a tie (float noise from weighted sums). */
const TIE_EPSILON = 1e-9;

/** Uniform integer in [0, n). */
function randomIndex(random: () => number, n: number): number {
  const i = Math.floor(random() * n);
  return i >= n ? n - 1 : i < 0 ? 0 : i;
}

/** The highest total; ties broken uniformly at random (reservoir sampling, no allocation). */
export function argmaxRandomTie(scored: readonly ScoredEndpoint[], random: () => number): ScoredEndpoint | undefined {
  let best: ScoredEndpoint | undefined;
  let ties = 0;
  for (const s of scored) {
    if (best === undefined || s.total > best.total + TIE_EPSILON) {
      best = s;
      ties = 1;
    } else if (Math.abs(s.total - best.total) <= TIE_EPSILON) {
      ties++;
      if (randomIndex(random, ties) === 0) best = s;
    }
  }
  return best;
}

/** Deterministic best total, random among equals. Herds without the inflight scorer. */
export class MaxScorePicker implements Picker {
  readonly type = 'max-score-picker';
  constructor(readonly name: string) {}
  pick(_req: SchedRequest, scored: readonly ScoredEndpoint[], random: () => number): ScoredEndpoint | undefined {
    return argmaxRandomTie(scored, random);
  }
}

/** Power of two choices: two distinct random candidates, the better (first drawn on a tie). */
export class P2cPicker implements Picker {
  readonly type = 'p2c-picker';
  constructor(readonly name: string) {}
  pick(_req: SchedRequest, scored: readonly ScoredEndpoint[], random: () => number): ScoredEndpoint | undefined {
    const n = scored.length;
    if (n <= 1) return scored[0];
    const i = randomIndex(random, n);
    let j = randomIndex(random, n - 1);
    if (j >= i) j++;
    const a = scored[i];
    const b = scored[j];
    return b.total > a.total + TIE_EPSILON ? b : a;
  }
}

/**
 * Samples with probability ∝ exp(total / temperature) (Dynamo's
 * router_temperature). Temperature 0 is argmax with random ties.
 */
export class SoftmaxPicker implements Picker {
  readonly type = 'softmax-picker';
  constructor(
    readonly name: string,
    readonly temperature: number,
  ) {}
  pick(_req: SchedRequest, scored: readonly ScoredEndpoint[], random: () => number): ScoredEndpoint | undefined {
    if (scored.length <= 1 || this.temperature === 0) return argmaxRandomTie(scored, random);
    let max = Number.NEGATIVE_INFINITY;
    for (const s of scored) max = Math.max(max, s.total);
    let sum = 0;
    for (const s of scored) sum += Math.exp((s.total - max) / this.temperature);
    let r = random() * sum;
    for (const s of scored) {
      r -= Math.exp((s.total - max) / this.temperature);
      if (r < 0) return s;
    }
    return scored[scored.length - 1];
  }
}

/**
 * Cycles through the candidates in the order given, ignoring scores (the
 * `debug` profile). The counter belongs to the picker instance, so every
 * request using the profile advances it.
 */
export class RoundRobinPicker implements Picker {
  readonly type = 'round-robin-picker';
  private counter = 0;
  constructor(readonly name: string) {}
  pick(_req: SchedRequest, scored: readonly ScoredEndpoint[]): ScoredEndpoint | undefined {
    if (scored.length === 0) return undefined;
    const s = scored[this.counter % scored.length];
    this.counter = (this.counter + 1) % 0x7fffffff;
    return s;
  }
}

const noParams = z.object({}).strict();
const softmaxParams = z
  .object({
    /** 0 = argmax; larger flattens the choice. Scores are weighted sums, so scale with the weights. */
    temperature: z.number().min(0).default(0.2),
  })
  .strict();

export const maxScorePickerFactory: PluginFactory<'picker'> = {
  kind: 'picker',
  description: 'highest total score, random among ties',
  create: (name, params) => {
    parsePluginParams('max-score-picker', name, noParams, params);
    return new MaxScorePicker(name);
  },
};
export const p2cPickerFactory: PluginFactory<'picker'> = {
  kind: 'picker',
  description: 'power of two choices: the better of two random candidates',
  create: (name, params) => {
    parsePluginParams('p2c-picker', name, noParams, params);
    return new P2cPicker(name);
  },
};
export const softmaxPickerFactory: PluginFactory<'picker'> = {
  kind: 'picker',
  description: 'samples ∝ exp(score / temperature); temperature 0 = argmax',
  create: (name, params) => new SoftmaxPicker(name, parsePluginParams('softmax-picker', name, softmaxParams, params).temperature),
};
export const roundRobinPickerFactory: PluginFactory<'picker'> = {
  kind: 'picker',
  description: 'cycles through the candidates, ignoring scores',
  create: (name, params) => {
    parsePluginParams('round-robin-picker', name, noParams, params);
    return new RoundRobinPicker(name);
  },
};
