import type { IsolationOptions, PhaseResult } from './isolation-harness';

/**
 * What priority isolation means, asserted on counts of events rather than on
 * durations, so it holds on a machine of any speed or load (the TTFT ratios
 * are printed beside them, and measured by tools/bench/priority-isolation.ts):
 * every loaded platinum request reached an engine, at most one in ten found
 * no free batch slot there (the p90 criterion), the flood was held at the
 * gateway (most bronze queued at admission, the engines kept busy, bronze
 * still completing), and platinum did not queue behind it there: its
 * admission wait p90 is a small fraction of bronze's median.
 */
export function expectIsolated(r: PhaseResult, o: IsolationOptions, minOccupancy: number): void {
  expect(r.fallbacks).toBe(0);
  expect(r.platinumAtEngine).toBe(o.platinumSamples);
  expect(r.platinumWaitedForSlot).toBeLessThanOrEqual(Math.floor(o.platinumSamples / 10));
  expect(r.peakBronzeQueued).toBeGreaterThan(o.bronzeConcurrency / 2);
  expect(r.peakOccupancy).toBeGreaterThanOrEqual(minOccupancy);
  expect(r.bronzeCompletedWhileMeasured).toBeGreaterThan(0);
  expect(r.bronzeQueueP50).toBeGreaterThan(0);
  expect(r.loadedQueueP90).toBeLessThanOrEqual(r.bronzeQueueP50 / 10);
}

/**
 * The same flood with admission off, as the engines saw it: most platinum
 * requests found every slot taken and queued inside an engine behind many
 * bronze ones (the collapse admission exists to prevent).
 */
export function expectCollapse(r: PhaseResult, o: IsolationOptions): void {
  expect(r.platinumAtEngine).toBe(o.platinumSamples);
  expect(r.platinumWaitedForSlot).toBeGreaterThanOrEqual(Math.ceil(o.platinumSamples / 2));
  expect(r.platinumAheadP90).toBeGreaterThan(o.maxNumSeqs);
  expect(r.peakEngineWaiting).toBeGreaterThan(o.bronzeConcurrency / 2);
}
