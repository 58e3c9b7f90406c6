import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisEndpointSource, RedisEndpointWriter } from './redis-source';
import { normaliseEndpoint } from './static-source';
import { waitUntil } from '@llmgw/contracts/wait';

const URL = 'redis://127.0.0.1:6379';

const until = (cond: () => boolean) => waitUntil(cond, 'the endpoint view to change');

describe('RedisEndpointSource', () => {
  const prefix = `test:${randomUUID()}:`;
  const redis = new Redis(URL);
  const writer = new RedisEndpointWriter(redis, prefix);
  afterAll(async () => {
    await writer.clear();
    redis.disconnect();
  });

  it('loads, follows pub/sub changes, ignores junk and keeps the list when Redis goes away', async () => {
    await writer.replace([normaliseEndpoint({ name: 'a', url: 'http://h:1', model: 'm', pool: 'p1', priority: 5 })]);
    const [commands, subscriber] = [new Redis(URL), new Redis(URL)];
    const src = await RedisEndpointSource.open({ commands, subscriber, keyPrefix: prefix, pollIntervalMs: 60_000 });
    try {
      expect(src.endpoints('m')).toMatchObject([{ id: 'a', pool: 'p1', priority: 5, engine: 'vllm' }]);
      let changes = 0;
      src.subscribe(() => changes++);
      await writer.put(normaliseEndpoint({ name: 'b', url: 'http://h:2', model: 'm', engine: 'sglang', draining: true }));
      await until(() => src.endpoints('m').length === 2);
      expect(changes).toBe(1);
      expect(src.endpoints('m').find((e) => e.id === 'b')).toMatchObject({ engine: 'sglang', draining: true });

      await redis.hset(`${prefix}endpoints`, 'junk', '{not json');
      await redis.publish(`${prefix}endpoints:changed`, 'not a version'); // logged and ignored; the source carries on
      await writer.remove('a');
      await until(() => src.endpoints('m').length === 1);
      expect(src.all().map((e) => e.id)).toEqual(['b']);

      // A publisher's scheduling policy and KV event sockets survive the trip (endpoint record v1).
      await writer.put(
        normaliseEndpoint({
          name: 'c',
          url: 'http://h:3',
          model: 'm',
          scheduling_policy: 'priority',
          kv_events: { endpoint: 'tcp://h:5557', replay_endpoint: 'tcp://h:5558' },
        }),
      );
      await until(() => src.endpoints('m').length === 2);
      expect(src.endpoints('m').find((e) => e.id === 'c')).toMatchObject({
        schedulingPolicy: 'priority',
        kvEvents: { endpoint: 'tcp://h:5557', replayEndpoint: 'tcp://h:5558' },
      });
      await writer.remove('c');
      await until(() => src.endpoints('m').length === 1);

      // Simulate losing Redis: the cached list keeps serving.
      (src as any).cmd.disconnect();
      await src.reload();
      expect(src.all().map((e) => e.id)).toEqual(['b']);
    } finally {
      await src.close();
      subscriber.disconnect();
    }
  });
});
