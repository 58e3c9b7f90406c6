import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createDb } from './create-db';
import { openPglite, pgliteTemplatePath } from './pglite-template';

// Each initdb is ~5 s of CPU; this suite runs two, and loads the template three times.
jest.setTimeout(120_000);

describe('the PGlite initdb template', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-pglite-template-'));
  const env = { LLMGW_PGLITE_TEMPLATE: join(dir, 'cache', 'template.tar.gz') };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is a per-user cache file named by the PGlite version, or the named file, or off', () => {
    expect(pgliteTemplatePath({ XDG_CACHE_HOME: '/c' })).toMatch(/^\/c\/llmgw\/pglite-\d+\.\d+\.\d+\.tar\.gz$/);
    expect(pgliteTemplatePath({ LLMGW_PGLITE_TEMPLATE: '/t.tgz' })).toBe('/t.tgz');
    expect(pgliteTemplatePath({ LLMGW_PGLITE_TEMPLATE: 'off' })).toBeUndefined();
  });

  it('is saved after the first initdb, then new databases (in memory and on disk) load it; an existing one is just opened', async () => {
    const first = await openPglite(undefined, env);
    expect(first.opened).toBe('initdb, template saved');
    await first.lite.close();
    const saved = statSync(env.LLMGW_PGLITE_TEMPLATE).mtimeMs;

    const mem = await openPglite(undefined, env);
    expect(mem.opened).toBe('from template');
    expect((await mem.lite.query<{ n: number }>('select 1 + 1 as n')).rows).toEqual([{ n: 2 }]);
    await mem.lite.close();

    const onDisk = join(dir, 'data');
    const disk = await openPglite(onDisk, env);
    expect(disk.opened).toBe('from template');
    await disk.lite.exec('create table t (x int); insert into t values (7)');
    await disk.lite.close();
    const again = await openPglite(onDisk, env);
    expect(again.opened).toBe('existing');
    expect((await again.lite.query<{ x: number }>('select x from t')).rows).toEqual([{ x: 7 }]);
    await again.lite.close();
    expect(statSync(env.LLMGW_PGLITE_TEMPLATE).mtimeMs).toBe(saved);
  });

  it('createDb migrates a database made from the template like one made by initdb', async () => {
    const before = process.env.LLMGW_PGLITE_TEMPLATE;
    process.env.LLMGW_PGLITE_TEMPLATE = env.LLMGW_PGLITE_TEMPLATE;
    const db = await createDb(`pglite:${join(dir, 'migrated')}`).finally(() => {
      if (before === undefined) delete process.env.LLMGW_PGLITE_TEMPLATE;
      else process.env.LLMGW_PGLITE_TEMPLATE = before;
    });
    try {
      const tables = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_name = 'api_keys'`.execute(db.db);
      expect(tables.rows[0].n).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('deletes a damaged template and runs initdb instead, in a clean directory', async () => {
    writeFileSync(env.LLMGW_PGLITE_TEMPLATE, 'not a tar');
    const where = join(dir, 'after-damage');
    const r = await openPglite(where, env);
    expect(r.opened).toBe('initdb, template saved');
    expect((await r.lite.query<{ n: number }>('select 1 as n')).rows).toEqual([{ n: 1 }]);
    await r.lite.close();
    expect(existsSync(env.LLMGW_PGLITE_TEMPLATE)).toBe(true);
    expect(readdirSync(where)).toContain('PG_VERSION');
  });
});
