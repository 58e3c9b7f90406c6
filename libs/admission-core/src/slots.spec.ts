import { SlotLearner } from './slots';

const feed = (l: SlotLearner, samples: Array<[running: number, waiting: number]>) => {
  for (const [running, waiting] of samples) l.observe({ running, waiting });
  return l;
};

describe('SlotLearner (slots of an endpoint that declares none)', () => {
  it('learns the running count of a full engine from three scrapes with a queue, even when the batch flickers between them', () => {
    // A full 6-slot engine read one short now and then: 6, 5, 6, 5, 6 with a queue throughout.
    const l = feed(new SlotLearner(), [
      [6, 4],
      [5, 5],
      [6, 3],
    ]);
    expect(l.learned).toBeUndefined(); // two scrapes at 6 are not yet proof
    feed(l, [
      [5, 4],
      [6, 2],
    ]);
    expect(l.learned).toBe(6);
    expect(l.capacity()).toBe(6);
  });

  it('does not take a short queue at a smaller batch for the slot count while the engine ran more in the window', () => {
    // A CPU-starved engine shows requests waiting for its next scheduling step at any batch size.
    const l = feed(new SlotLearner(), [
      [6, 0],
      [2, 1],
      [2, 1],
      [2, 2],
      [3, 1],
    ]);
    expect(l.learned).toBeUndefined();
    // Nothing learned, but a queue was seen: the capacity used is the most it ran, not a probe beyond it.
    expect(l.capacity()).toBe(6);
  });

  it('probes by doubling before any queue, and stops probing at the first queue', () => {
    const l = feed(new SlotLearner(), [[3, 0]]);
    expect(l.capacity()).toBe(6);
    feed(l, [[5, 0]]);
    expect(l.capacity()).toBe(10);
    feed(l, [[6, 2]]);
    expect(l.sawQueue).toBe(true);
    expect(l.capacity()).toBe(6); // not 12: the engine already queues at 6
    expect(l.learned).toBeUndefined();
  });

  it('after an unconfirmed queue, a whole window without one at the high-water mark resumes the probe a quarter at a time; a queue holds it again', () => {
    // A starved 32-slot engine showed a short queue at 12 running: not 3 confirmations, nothing learned.
    const l = feed(new SlotLearner({ window: 4 }), [
      [12, 2],
      [12, 0],
      [12, 0],
    ]);
    expect(l.learned).toBeUndefined();
    expect(l.capacity()).toBe(12); // the queue is still in the window
    feed(l, [[12, 0]]);
    expect(l.capacity()).toBe(12); // still in the window
    feed(l, [[12, 0]]);
    expect(l.capacity()).toBe(15); // a window of 4 scrapes at 12 with no queue: probe on
    feed(l, [
      [15, 0],
      [15, 0],
      [15, 0],
      [15, 0],
    ]);
    expect(l.capacity()).toBe(18);
    feed(l, [[14, 0]]);
    expect(l.capacity()).toBe(15); // not running at the mark: nothing to probe for
    feed(l, [[15, 1]]);
    expect(l.capacity()).toBe(15); // a queue: hold at the most it ran
  });

  it('keeps a learned value while the engine shows no queue (admission holding the flood is the value working)', () => {
    const l = feed(new SlotLearner(), [
      [6, 3],
      [6, 3],
      [6, 3],
    ]);
    expect(l.learned).toBe(6);
    feed(
      l,
      Array.from({ length: 30 }, (_x, i): [number, number] => [i % 6, 0]),
    );
    expect(l.learned).toBe(6);
  });

  it('rises at once when the engine runs more than learned (restarted with more slots)', () => {
    const l = feed(new SlotLearner(), [
      [6, 3],
      [6, 3],
      [6, 3],
    ]);
    expect(l.observe({ running: 9, waiting: 0 })).toBe(true);
    expect(l.learned).toBe(9);
  });

  it('falls when the engine keeps a queue at a smaller batch while holding at least the learned number of requests (restarted with fewer slots)', () => {
    const l = feed(new SlotLearner({ window: 6 }), [
      [6, 3],
      [6, 3],
      [6, 3],
    ]);
    // Restarted with 4 slots: 4 running, 3 waiting (7 requests ≥ 6 learned) in every scrape.
    feed(l, [
      [4, 3],
      [4, 3],
      [4, 3],
    ]);
    expect(l.learned).toBe(6); // the window still holds scrapes that ran 6
    feed(l, [
      [4, 3],
      [4, 3],
      [4, 3],
    ]);
    expect(l.learned).toBe(4);
  });

  it('does not fall for a starved engine with a short queue and few requests', () => {
    const l = feed(new SlotLearner({ window: 6 }), [
      [6, 3],
      [6, 3],
      [6, 3],
    ]);
    // 2 running + 1 waiting = 3 requests: fewer than the 6 slots it has shown, so the queue is not a slot limit.
    feed(
      l,
      Array.from({ length: 12 }, (): [number, number] => [2, 1]),
    );
    expect(l.learned).toBe(6);
  });

  it('ignores garbage numbers from a broken scrape', () => {
    const l = feed(new SlotLearner(), [
      [Number.NaN, 3],
      [-1, 2],
      [6, Number.POSITIVE_INFINITY],
    ]);
    expect(l.learned).toBeUndefined();
    expect(l.hwm).toBe(6);
  });
});
