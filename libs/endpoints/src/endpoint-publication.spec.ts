import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryEndpointHub, type EndpointWriter } from './memory-source';
import { RedisEndpointSource, RedisEndpointWriter } from './redis-source';
import { normaliseEndpoint } from './static-source';
import type { EndpointSource } from './types';
import { waitUntil } from '@llmgw/contracts/wait';

// Endpoint publication, one contract for both implementations: what a writer (the placement-scheduler)
// puts is what every reader (routers, admission) sees, changes arrive without polling, and a record
// reads back the same through Redis as in process.
const URL = 'redis://127.0.0.1:6379';
const redis = new Redis(URL, { maxRetriesPerRequest: 1 });
const prefixes: string[] = [];
const conns: Redis[] = [];

afterAll(async () => {
  for (const p of prefixes) {
    const keys = await redis.keys(`${p}*`);
    if (keys.length) await redis.del(...keys);
  }
  redis.disconnect();
  for (const c of conns) c.disconnect();
});

interface Impl {
  writer: EndpointWriter;
  /** A reader; polling is off (an hour), so only change notifications can bring news. */
  open(): Promise<EndpointSource>;
}

const impls: Array<[string, () => Impl]> = [
  [
    'memory',
    () => {
      const hub = new MemoryEndpointHub();
      return { writer: hub, open: async () => hub.source() };
    },
  ],
  [
    'redis',
    () => {
      const prefix = `test:${randomUUID()}:`;
      prefixes.push(prefix);
      return {
        writer: new RedisEndpointWriter(redis, prefix),
        open: () => {
          const [commands, subscriber] = [new Redis(URL), new Redis(URL)];
          conns.push(commands, subscriber);
          return RedisEndpointSource.open({ commands, subscriber, keyPrefix: prefix, pollIntervalMs: 3_600_000 });
        },
      };
    },
  ],
];

const until = (cond: () => boolean, what: string) => waitUntil(cond, what);

const ep = (name: string, over: Record<string, unknown> = {}) => normaliseEndpoint({ name, url: `http://h:${name.length}/`, model: 'm', ...over });

describe.each(impls)('endpoint publication contract (%s)', (_name, make) => {
  let impl: Impl;
  const open: EndpointSource[] = [];
  beforeEach(() => {
    impl = make();
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });
  const source = async () => {
    const s = await impl.open();
    open.push(s);
    return s;
  };

  it('a reader opened before anything was written starts empty', async () => {
    const s = await source();
    expect(s.all()).toEqual([]);
    expect(s.models()).toEqual([]);
  });

  it('a reader opened later loads what was written, sorted by id, every field of record v1 intact', async () => {
    const full = ep('b', {
      engine: 'sglang',
      pool: 'p1',
      priority: 5,
      weight: 50,
      draining: true,
      scheduling_policy: 'priority',
      max_num_seqs: 64,
      kv_events: { endpoint: 'tcp://h:5557', replay_endpoint: 'tcp://h:5558' },
    });
    await impl.writer.replace([full, ep('a', { model: 'n' })]);
    const s = await source();
    expect(s.all().map((e) => e.id)).toEqual(['a', 'b']);
    expect(s.endpoints('m')).toEqual([full]);
    expect(s.endpoints('n').map((e) => e.id)).toEqual(['a']);
    expect(s.models().sort()).toEqual(['m', 'n']);
  });

  it('follows put, remove and replace as they happen, notifying subscribers once per change', async () => {
    const s = await source();
    let changes = 0;
    s.subscribe(() => changes++);
    await impl.writer.put(ep('a'));
    await until(() => s.all().length === 1, 'the put');
    await impl.writer.put(ep('bb'));
    await until(() => s.all().length === 2, 'the second put');
    await impl.writer.remove('a');
    await until(() => s.all().length === 1, 'the remove');
    expect(s.all().map((e) => e.id)).toEqual(['bb']);
    await impl.writer.replace([ep('c'), ep('d')]);
    await until(() => s.all().length === 2 && s.all()[0].id === 'c', 'the replace');
    expect(changes).toBe(4);
  });

  it('every reader sees the same set; one that is closed hears nothing more', async () => {
    const a = await source();
    const b = await source();
    let heardByA = 0;
    a.subscribe(() => heardByA++);
    await a.close();
    await impl.writer.put(ep('x', { weight: 7 }));
    await until(() => b.all().length === 1, 'the second reader');
    expect(b.endpoints('m')[0]).toMatchObject({ id: 'x', weight: 7, engine: 'vllm', pool: 'default' });
    expect(heardByA).toBe(0);
  });

  it('a write that changes nothing notifies nobody', async () => {
    await impl.writer.replace([ep('a')]);
    const s = await source();
    let changes = 0;
    s.subscribe(() => changes++);
    await impl.writer.replace([ep('a')]);
    await impl.writer.put(ep('z'));
    await until(() => s.all().length === 2, 'the put after the no-op');
    expect(changes).toBe(1);
  });
});
