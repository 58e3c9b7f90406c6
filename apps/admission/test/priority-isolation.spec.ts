import { CI_OPTIONS, IsolationRig, type PhaseResult } from './isolation-harness';
import { expectCollapse, expectIsolated } from './isolation-expect';

/**
 * The phase 1.5 exit criterion, CI-sized: real sim-engine processes saturated
 * by a bronze flood, a router in front of them, and platinum requests with
 * the admission service on (platinum keeps finding a free slot while bronze
 * waits at the gateway) and off (platinum queues inside the engines behind
 * bronze). Asserted on counted events (see isolation-expect.ts); the TTFT
 * ratios are printed, and measured at full size by
 * tools/bench/priority-isolation.ts.
 */
describe('priority isolation (phase 1.5 exit criterion)', () => {
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

  it('platinum keeps finding a free slot while bronze saturates the engines and waits at the gateway', () => {
    // Busy, not full: bronze borrows at most all but a slot per engine, and with 64 slots turning
    // over every 0.3-1 s the 200 ms samples caught 83-100 % from run to run.
    expectIsolated(on, CI_OPTIONS, 0.75);
  });

  it('shows the collapse with admission off', () => {
    expectCollapse(off, CI_OPTIONS);
  });
});
