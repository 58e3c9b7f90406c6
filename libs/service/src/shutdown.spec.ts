import { getEventListeners } from 'node:events';
import { createLogger } from '@llmgw/observability';
import { Shutdown } from './shutdown';

describe('Shutdown', () => {
  it('runs steps last-registered first, every one even after a failure', async () => {
    const order: string[] = [];
    const s = new Shutdown(createLogger({ service: 'test', level: 'silent' }));
    s.add('a', () => void order.push('a'));
    s.add('b', () => {
      order.push('b');
      throw new Error('b failed');
    });
    s.add('c', async () => void order.push('c'));
    await s.run(5_000);
    expect(order).toEqual(['c', 'b', 'a']);
  });

  it('leaves no listener behind on the drain signal once a step is done (many steps would warn of a leak)', async () => {
    const seen: number[] = [];
    const s = new Shutdown(createLogger({ service: 'test', level: 'silent' }));
    for (let i = 0; i < 25; i++) s.add(`step ${i}`, (signal) => void seen.push(getEventListeners(signal, 'abort').length));
    await s.run(5_000);
    // Only the running step's own deadline guard listens, however many steps ran before it.
    expect(Math.max(...seen)).toBe(1);
  });
});
