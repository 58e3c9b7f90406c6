import { unsubscribeIfUp } from './redis-subscription';

describe('unsubscribeIfUp', () => {
  const conn = (status: string, fail = false) => {
    const sent: string[] = [];
    return {
      sent,
      status,
      unsubscribe: async (ch: string) => {
        sent.push(ch);
        if (fail) throw new Error('Connection is closed.');
      },
    };
  };

  it('unsubscribes on a connection that is up, and swallows its failure', async () => {
    const up = conn('ready');
    await unsubscribeIfUp(up, 'c');
    expect(up.sent).toEqual(['c']);
    await expect(unsubscribeIfUp(conn('ready', true), 'c')).resolves.toBeUndefined();
  });

  it.each(['reconnecting', 'connecting', 'close', 'end'])('sends nothing on a connection that is %s', async (status) => {
    const down = conn(status);
    await unsubscribeIfUp(down, 'c');
    expect(down.sent).toEqual([]);
  });
});
