/** What ending a subscription needs of a Redis subscriber connection (ioredis's `Redis`). */
export interface SubscriberConnection {
  readonly status: string;
  unsubscribe(channel: string): Promise<unknown>;
}

/**
 * Ends a subscription on close: UNSUBSCRIBE only on a connection that is up.
 * On one that is down it would wait in the offline queue for a Redis that may
 * never come back, holding up shutdown to its drain deadline, and there is
 * then no subscription on the server to end. Never throws.
 */
export async function unsubscribeIfUp(sub: SubscriberConnection, channel: string): Promise<void> {
  if (sub.status !== 'ready') return;
  await sub.unsubscribe(channel).catch(() => undefined);
}
