import { deriveEngineSecret, endpointKeys, RedisEndpointSource } from '@llmgw/endpoints';
import { makeModel, Reconciler, SimFleet } from '@llmgw/placement';
import { waitUntil } from '@llmgw/testing';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { RedisEndpointPublisher } from './redis-state';

/**
 * The one endpoint schema from scheduler to router: what the reconciler
 * publishes through RedisEndpointPublisher is read back by the routers'
 * RedisEndpointSource as the same EndpointInfo (endpoint record v1), with the
 * engine contract and the auth marker, and without the secret.
 */
describe('scheduler → Redis → router: the endpoint record round trip', () => {
  const prefix = `test:sched-rt:${randomBytes(5).toString('hex')}:`;
  const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  let source: RedisEndpointSource | undefined;
  const conns: Redis[] = [];
  afterAll(async () => {
    await source?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    for (const c of conns) c.disconnect();
  });

  it('a placed replica reads back with max_num_seqs, kv_events, scheduling_policy and auth — never its secret', async () => {
    const key = randomBytes(32);
    const fleet = new SimFleet([{ id: 'n1', gpus: 1 }]);
    const rec = new Reconciler({
      catalog: () => [makeModel('chat', [{ engine: 'sim', maxNumSeqs: 12, kvEvents: true, schedulingPolicy: 'priority' }])],
      sink: fleet,
      publisher: new RedisEndpointPublisher(redis, prefix),
      fencingToken: () => 1,
      now: () => 1_000,
      newReplicaId: (m) => `${m}-${randomBytes(4).toString('hex')}`,
      engineSecret: (id) => deriveEngineSecret(key, id),
    });
    await rec.reconcile(fleet.view());
    fleet.readyAll();
    await rec.reconcile(fleet.view());
    const [placed] = rec.endpoints();
    expect(placed).toBeDefined();

    const [commands, subscriber] = [new Redis('redis://127.0.0.1:6379'), new Redis('redis://127.0.0.1:6379')];
    conns.push(commands, subscriber);
    source = await RedisEndpointSource.open({ commands, subscriber, keyPrefix: prefix });
    await waitUntil(() => source!.all().length === 1, 'the record read back', { timeoutMs: 10_000, everyMs: 20 });
    const { fabric: _f, gpuClass: _g, ...asRecord } = placed;
    expect(source.all()[0]).toEqual(asRecord);
    expect(source.all()[0]).toMatchObject({
      maxNumSeqs: 12,
      schedulingPolicy: 'priority',
      auth: 'replica-key',
      kvEvents: { endpoint: expect.stringMatching(/^tcp:\/\/10\.0\.0\.2:\d+$/) },
    });

    const raw = await redis.hget(endpointKeys(prefix).hash, placed.id);
    expect(JSON.parse(raw!)).toMatchObject({
      v: 1,
      max_num_seqs: 12,
      scheduling_policy: 'priority',
      auth: 'replica-key',
      kv_events: { endpoint: placed.kvEvents!.endpoint, replay_endpoint: placed.kvEvents!.replayEndpoint },
    });
    expect(raw).not.toContain(deriveEngineSecret(key, placed.id));
    expect(fleet.shards.get(`${placed.id}-r0`)!.spec!.apiKey).toBe(deriveEngineSecret(key, placed.id));
  });
});
