import { waitUntil } from './wait';

describe('waitUntil', () => {
  it('resolves as soon as the condition holds, sync or async', async () => {
    let n = 0;
    await waitUntil(() => ++n >= 3, 'three polls', { everyMs: 1 });
    expect(n).toBe(3);
    await waitUntil(async () => true, 'an async yes');
  });

  it('fails loudly, naming what it waited for', async () => {
    await expect(waitUntil(() => false, 'the moon', { timeoutMs: 20, everyMs: 1 })).rejects.toThrow(/timed out after 20 ms waiting for the moon/);
  });
});
