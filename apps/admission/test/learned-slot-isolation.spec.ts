import { IsolationRig, LEARNED_SLOT_OPTIONS, type PhaseResult } from './isolation-harness';
import { expectIsolated } from './isolation-expect';

/**
 * The slot-limited shape with nothing declared: three sim-engines started with
 * --max-num-seqs 6 whose endpoints carry no max_num_seqs (an operator's static
 * endpoints written without it). Admission learns each engine's slots from
 * its metrics — the running count while requests wait — and then holds the
 * bronze flood (20 × the 18 slots) at the gateway exactly as for declared
 * slots, so platinum finds a free slot. Asserted on counted events (see
 * isolation-expect.ts); wall-clock figures: tools/bench/priority-isolation.ts
 * --slots --engines 3 --max-num-seqs 6 --bronze 360.
 */
describe('priority isolation on undeclared slot-limited engines (learned slots)', () => {
  const lines: string[] = [];
  let rig: IsolationRig;
  let on: PhaseResult;

  beforeAll(async () => {
    rig = new IsolationRig({ ...LEARNED_SLOT_OPTIONS, log: (l) => lines.push(l) });
    await rig.startEngines();
    on = await rig.phase(true);
    process.stdout.write(`${lines.join('\n')}\n`);
  }, 240_000);

  afterAll(() => rig?.close());

  it('learns every engine’s 6 slots from its metrics', () => {
    expect(on.learnedSlots).toEqual({ e0: 6, e1: 6, e2: 6 });
  });

  it('on learned slots platinum finds a free slot while bronze floods 20x them and is held at the gateway, and bronze keeps completing', () => {
    expectIsolated(on, LEARNED_SLOT_OPTIONS, 12 / 18);
  });
});
