import { CI_OPTIONS, IsolationRig, type PhaseResult } from './isolation-harness';

/**
 * The phase 1.5 exit criterion (plan §11), CI-sized: real sim-engine
 * processes saturated by a bronze flood, a router in front of them, and
 * platinum TTFT p99 compared with its idle value — with the admission service
 * on (must stay under 1.5×) and off (must show the collapse, > 3×).
 * Full size: tools/bench/priority-isolation.ts.
 */
// Wall-clock ratios on real processes: they run in `npm test` (CI runs on a machine with nothing else
// on it; measured there at 1.05-1.08x against a bound of 1.5x). On a machine shared with other heavy
// load the ratios measure that load instead: LLMGW_TIMING_TESTS=0 skips them there, never in CI.
const timing = process.env.LLMGW_TIMING_TESTS === '0' && !process.env.CI ? describe.skip : describe;

timing('priority isolation (phase 1.5 exit criterion)', () => {
  const lines: string[] = [];
  let rig: IsolationRig;
  let on: PhaseResult;
  let off: PhaseResult;

  beforeAll(async () => {
    rig = new IsolationRig({ ...CI_OPTIONS, log: (l) => lines.push(l) });
    await rig.startEngines();
    on = await rig.phase(true);
    off = await rig.phase(false);
    process.stdout.write(`${lines.join('\n')}\n`);
  }, 150_000);

  afterAll(() => rig?.close());

  it('keeps platinum TTFT p99 under 1.5x its idle value while bronze saturates the engines', () => {
    // the engines were saturated and bronze was being held at the gateway ...
    expect(on.peakOccupancy).toBeGreaterThanOrEqual(0.9);
    expect(on.peakBronzeQueued).toBeGreaterThan(0);
    expect(on.fallbacks).toBe(0);
    // ... while platinum kept its TTFT
    expect(on.ratio).toBeLessThan(1.5);
  });

  it('shows the collapse with admission off', () => {
    expect(off.peakEngineWaiting).toBeGreaterThan(2 * CI_OPTIONS.maxNumSeqs);
    expect(off.ratio).toBeGreaterThan(3);
    expect(off.loadedP99).toBeGreaterThan(2 * on.loadedP99);
  });
});
