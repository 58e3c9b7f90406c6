import { waitUntil } from './wait';

describe('waitUntil', () => {
  it('resolves as soon as the condition holds, sync or async', async () => {
    let n = 0;
    await waitUntil(() => ++n >= 3, 'three polls', { everyMs: 1 });
    expect(n).toBe(3);
    await waitUntil(async () => true, 'an async yes');
  });

  it('hands over the first truthy value', async () => {
    let n = 0;
    const got = await waitUntil(() => (++n === 4 ? { n } : undefined), 'the fourth poll', { everyMs: 1 });
    expect(got).toEqual({ n: 4 });
  });

  it('fails loudly, naming what it waited for and what it saw', async () => {
    await expect(waitUntil(() => false, 'the moon', { timeoutMs: 20, everyMs: 1 })).rejects.toThrow(/timed out after 20 ms waiting for the moon$/);
    await expect(waitUntil(() => 0, 'a count', { timeoutMs: 20, everyMs: 1, seen: () => ({ count: 0 }) })).rejects.toThrow(
      'waiting for a count; saw {"count":0}',
    );
  });

  it('passes a throwing condition through, unless told to keep trying', async () => {
    await expect(
      waitUntil(() => {
        throw new Error('refused');
      }, 'a server'),
    ).rejects.toThrow('refused');
    let n = 0;
    const got = await waitUntil(
      () => {
        if (++n < 3) throw new Error('refused');
        return n;
      },
      'a server',
      { everyMs: 1, ignoreErrors: true },
    );
    expect(got).toBe(3);
  });
});
