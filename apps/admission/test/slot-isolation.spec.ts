import { IsolationRig, SLOT_OPTIONS, type PhaseResult } from './isolation-harness';
import { expectCollapse, expectIsolated } from './isolation-expect';

/**
 * Issue 13 on real processes: slot-limited engines (two sim-engines with
 * --max-num-seqs 8), a closed-loop bronze flood of 20 × their 16 slots, and
 * short platinum prompts, through a router with admission remote (on) or
 * off. With the slot component, bronze borrows all but one slot per engine
 * and is held at the gateway, so platinum always finds a free slot.
 * The assertions count events the engines and admission report (which
 * platinum request found a free slot, who queued where), so they hold on a
 * busy machine; the TTFT ratios are printed beside them. Wall-clock figures:
 * tools/bench/priority-isolation.ts --slots (docs/performance.md).
 */
describe('priority isolation on slot-limited engines (issue 13)', () => {
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

  it('platinum finds a free slot while bronze floods 20x the slots and is held at the gateway, and bronze keeps completing', () => {
    expectIsolated(on, SLOT_OPTIONS, 12 / 16);
  });

  it('with admission off the same flood queues platinum inside the engines behind bronze (the flood is real)', () => {
    expectCollapse(off, SLOT_OPTIONS);
  });
});
