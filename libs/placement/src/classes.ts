import { CAPACITY_CLASSES, type CapacityClass, type Model } from './types';

/** A model's capacity class (undefined in the catalog = standard). */
export function classOf(m: Pick<Model, 'capacityClass'>): CapacityClass {
  return m.capacityClass ?? 'standard';
}

/** 0 for opportunistic, 1 standard, 2 critical: higher may preempt lower. */
export function classRank(c: CapacityClass): number {
  return CAPACITY_CLASSES.indexOf(c);
}

/** The order models are reconciled in: critical first, catalog order within a class. */
export function byClassDescending<T extends Pick<Model, 'capacityClass'>>(models: readonly T[]): T[] {
  return models
    .map((m, i) => ({ m, i }))
    .sort((a, b) => classRank(classOf(b.m)) - classRank(classOf(a.m)) || a.i - b.i)
    .map((x) => x.m);
}
