import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { MODEL_CATALOG_SCHEMA_VERSION, modelCatalogKeys, type CatalogEntry, type CatalogMode } from '@llmgw/contracts';
import type { CatalogViewReader, CatalogViewWriter } from './catalog-view';
import { MemoryCatalogView } from './catalog-view-memory';
import { RedisCatalogView, RedisCatalogViewReader } from './catalog-view-redis';
import { waitUntil } from '@llmgw/contracts/wait';

// The catalog view and demand, one contract for both implementations: what the scheduler writes
// reaches every router's reader at once (polling is off here), "no view seen yet" is told apart from
// "an empty view", and routers' use reaches the scheduler.
const prefixes: string[] = [];
const conns: Redis[] = [];
const conn = () => {
  const r = new Redis({ host: '127.0.0.1', port: 6379, maxRetriesPerRequest: 1 });
  conns.push(r);
  return r;
};
const redis = conn();

afterAll(async () => {
  for (const p of prefixes) {
    const keys = await redis.keys(`${p}*`);
    if (keys.length) await redis.del(...keys);
  }
  for (const c of conns) c.disconnect();
});

interface Impl {
  writer: CatalogViewWriter;
  reader(): Promise<CatalogViewReader>;
}

const impls: Array<[string, () => Impl]> = [
  [
    'memory',
    () => {
      const v = new MemoryCatalogView();
      return { writer: v, reader: async () => v.reader() };
    },
  ],
  [
    'redis',
    () => {
      const prefix = `test:${randomUUID()}:`;
      prefixes.push(prefix);
      return {
        writer: new RedisCatalogView(redis, prefix, conn()),
        reader: () => RedisCatalogViewReader.open({ redis, sub: conn(), keyPrefix: prefix, pollIntervalMs: 3_600_000 }),
      };
    },
  ],
];

const entry = (model: string, mode: CatalogMode, retryAfterS = 7): CatalogEntry => ({ v: MODEL_CATALOG_SCHEMA_VERSION, model, mode, retryAfterS });

const until = (cond: () => boolean, what: string) => waitUntil(cond, what);

describe.each(impls)('catalog view contract (%s)', (_name, make) => {
  let impl: Impl;
  const readers: CatalogViewReader[] = [];
  beforeEach(() => {
    impl = make();
  });
  afterEach(async () => {
    for (const r of readers.splice(0)) await r.close();
  });
  const reader = async () => {
    const r = await impl.reader();
    readers.push(r);
    return r;
  };

  it('a reader opened before any view was written has none loaded', async () => {
    const r = await reader();
    expect(r.loaded()).toBe(false);
    expect(r.get('demo')).toBeUndefined();
  });

  it('a write reaches a reader at once, with a change notification; the view is replaced whole', async () => {
    const r = await reader();
    let changes = 0;
    r.onChange(() => changes++);
    await impl.writer.write(
      new Map([
        ['demo', entry('demo', 'always-on')],
        ['lazy', entry('lazy', 'on-demand', 12)],
        ['alias', entry('lazy', 'on-demand', 12)],
      ]),
    );
    await until(() => r.loaded(), 'the first view');
    expect(r.get('lazy')).toEqual(entry('lazy', 'on-demand', 12));
    expect(r.get('alias')?.model).toBe('lazy');
    expect(r.names().sort()).toEqual(['alias', 'demo', 'lazy']);
    expect(changes).toBe(1);
    await impl.writer.write(new Map([['demo', entry('demo', 'off')]]));
    await until(() => r.get('lazy') === undefined, 'the second view');
    expect(r.get('demo')?.mode).toBe('off');
    expect(changes).toBe(2);
  });

  it('an empty view counts as loaded: every name is then known not to be catalogued', async () => {
    const r = await reader();
    await impl.writer.write(new Map());
    await until(() => r.loaded(), 'the empty view');
    expect(r.get('demo')).toBeUndefined();
  });

  it('a reader opened after a write has it at once', async () => {
    await impl.writer.write(new Map([['demo', entry('demo', 'always-on')]]));
    const r = await reader();
    expect(r.loaded()).toBe(true);
    expect(r.get('demo')?.mode).toBe('always-on');
  });

  it('writing the same view again notifies nobody', async () => {
    const view = new Map([['demo', entry('demo', 'always-on')]]);
    await impl.writer.write(view);
    const r = await reader();
    let changes = 0;
    r.onChange(() => changes++);
    await impl.writer.write(new Map(view));
    await impl.writer.write(new Map([['other', entry('other', 'always-on')]]));
    await until(() => r.get('other') !== undefined, 'the changed view');
    expect(changes).toBe(1);
  });

  it('use reported by readers reaches the writer: the latest time per model; urgent use wakes it', async () => {
    const r = await reader();
    const urgent: string[] = [];
    const off = await impl.writer.onUrgentDemand((m) => urgent.push(m));
    await r.touch('lazy', 1000, false);
    await r.touch('lazy', 2000, false);
    await r.touch('other', 1500, true);
    await until(() => urgent.length === 1, 'the urgent demand');
    expect(urgent).toEqual(['other']);
    expect(await impl.writer.demand()).toEqual(
      new Map([
        ['lazy', 2000],
        ['other', 1500],
      ]),
    );
    off();
    await r.touch('other', 3000, true);
    await r.touch('lazy', 3000, false);
    expect((await impl.writer.demand()).get('lazy')).toBe(3000);
    expect(urgent).toEqual(['other']);
  });
});

describe('catalog view in Redis', () => {
  it('a view written by an older scheduler (no version key) counts as loaded once it has entries', async () => {
    const prefix = `test:${randomUUID()}:`;
    prefixes.push(prefix);
    await redis.hset(modelCatalogKeys(prefix).catalog, 'demo', JSON.stringify(entry('demo', 'always-on')));
    const r = await RedisCatalogViewReader.open({ redis, sub: conn(), keyPrefix: prefix, pollIntervalMs: 3_600_000 });
    try {
      expect(r.loaded()).toBe(true);
      expect(r.get('demo')?.model).toBe('demo');
    } finally {
      await r.close();
    }
  });

  it('keeps the last view while Redis cannot be read', async () => {
    const prefix = `test:${randomUUID()}:`;
    prefixes.push(prefix);
    const w = new RedisCatalogView(redis, prefix);
    await w.write(new Map([['demo', entry('demo', 'always-on')]]));
    const cmd = conn();
    const r = await RedisCatalogViewReader.open({ redis: cmd, sub: conn(), keyPrefix: prefix, pollIntervalMs: 3_600_000 });
    try {
      cmd.disconnect();
      await r.refresh();
      expect(r.loaded()).toBe(true);
      expect(r.get('demo')?.mode).toBe('always-on');
    } finally {
      await r.close();
    }
  });
});
