import { IsolationRig, SLOT_OPTIONS, type PhaseResult } from './isolation-harness';

/**
 * Issue 13 on real processes: slot-limited engines (two sim-engines with
 * --max-num-seqs 8), a closed-loop bronze flood of 20 × their 16 slots, and
 * short platinum prompts, through a router with admission remote (on) or
 * off. With the slot component, bronze borrows all but one slot per engine
 * and is held at the gateway, so platinum always finds a free slot.
 * Full size and figures: tools/bench/priority-isolation.ts --slots.
 */
// Wall-clock ratios on real processes: they run in `npm test` (CI runs on a machine with nothing else
// on it; measured there at 1.05-1.08x against a bound of 1.5x). On a machine shared with other heavy
// load the ratios measure that load instead: LLMGW_TIMING_TESTS=0 skips them there, never in CI.
const timing = process.env.LLMGW_TIMING_TESTS === '0' && !process.env.CI ? describe.skip : describe;

timing('priority isolation on slot-limited engines (issue 13)', () => {
  const lines: string[] = [];
  let rig: IsolationRig;
  let on: PhaseResult;
  let off: PhaseResult;

  beforeAll(async () => {
    rig = new IsolationRig({ ...SLOT_OPTIONS, log: (l) => lines.push(l) });
    await rig.startEngines();
    on = await rig.phase(true);
    off = await rig.phase(false);
    process.stdout.write(`${lines.join('\n')}\n`);
  }, 240_000);

  afterAll(() => rig?.close());

  it('keeps platinum TTFT p90 within 1.5x idle while bronze floods 20x the slots, and bronze keeps completing', () => {
    expect(on.fallbacks).toBe(0);
    // the flood was held at the gateway, not in the engines' queues ...
    expect(on.peakBronzeQueued).toBeGreaterThan(SLOT_OPTIONS.bronzeConcurrency / 2);
    expect(on.peakOccupancy).toBeGreaterThanOrEqual(12 / 16);
    // ... bronze was not starved ...
    expect(on.bronzeCompletedWhileMeasured).toBeGreaterThan(0);
    // ... and platinum kept its TTFT
    expect(on.ratio90).toBeLessThanOrEqual(1.5);
  });

  it('with admission off the same flood makes platinum at least 10x worse (the flood is real)', () => {
    expect(off.peakEngineWaiting).toBeGreaterThan(SLOT_OPTIONS.bronzeConcurrency / 2);
    expect(off.loadedP90).toBeGreaterThanOrEqual(10 * on.loadedP90);
    expect(off.ratio90).toBeGreaterThanOrEqual(10);
  });
});
