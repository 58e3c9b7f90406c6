import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * A new PGlite database (a new `pglite:<dir>`, and every `pglite:memory`)
 * costs initdb: about 5 s of single-threaded CPU, most of a first `llmgw up`.
 * The first one made on a machine is therefore dumped, before any migration,
 * to a per-user cache file keyed by the PGlite version (a gzip tar, ~4.5 MB);
 * every later new database is loaded from it (about 1.2 s of CPU) instead.
 * A template that fails to load is deleted and initdb runs as before.
 *
 *   LLMGW_PGLITE_TEMPLATE=off      never use or write a template
 *   LLMGW_PGLITE_TEMPLATE=<file>   use this file (default: $XDG_CACHE_HOME or
 *                                  ~/.cache, then llmgw/pglite-<version>.tar.gz)
 */
export function pgliteTemplatePath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env.LLMGW_PGLITE_TEMPLATE;
  if (set === 'off' || set === '0') return undefined;
  if (set) return set;
  const cache = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'llmgw', `pglite-${pgliteVersion()}.tar.gz`);
}

let version: string | undefined;
/** The installed PGlite's version (its package.json does not export itself, so it is found from the entry). */
function pgliteVersion(): string {
  if (version) return version;
  let dir = dirname(require.resolve('@electric-sql/pglite'));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return (version = pkg.version);
    }
    const up = dirname(dir);
    if (up === dir) return (version = 'unknown');
    dir = up;
  }
}

/** True when `where` holds no database yet (initdb would run). */
function isNew(where: string | undefined): boolean {
  if (where === undefined) return true;
  return !existsSync(where) || readdirSync(where).length === 0;
}

/** How `open` reports what it did (tests, logs). */
export type PgliteOpened = 'existing' | 'from template' | 'initdb' | 'initdb, template saved';

/**
 * Opens PGlite in `where` (a directory) or in memory (`undefined`), a new
 * database from the template when there is one, and saves the template after
 * an initdb when there is none.
 */
export async function openPglite(where: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<{ lite: PGlite; opened: PgliteOpened }> {
  const open = async (opts?: { loadDataDir: Blob }) => {
    const lite = where === undefined ? new PGlite(opts) : new PGlite(where, opts);
    await lite.waitReady;
    return lite;
  };
  const template = isNew(where) ? pgliteTemplatePath(env) : undefined;
  if (!template) return { lite: await open(), opened: isNew(where) ? 'initdb' : 'existing' };

  if (existsSync(template)) {
    try {
      return { lite: await open({ loadDataDir: new Blob([readFileSync(template)]) }), opened: 'from template' };
    } catch {
      // A damaged or foreign template: forget it, and start clean where it began to unpack.
      rmSync(template, { force: true });
      if (where !== undefined) for (const f of existsSync(where) ? readdirSync(where) : []) rmSync(join(where, f), { recursive: true, force: true });
    }
  }
  const lite = await open();
  try {
    const tar = Buffer.from(await (await lite.dumpDataDir('gzip')).arrayBuffer());
    mkdirSync(dirname(template), { recursive: true });
    // Written aside and renamed: processes starting together never read half a file.
    const tmp = `${template}.${process.pid}.tmp`;
    writeFileSync(tmp, tar);
    renameSync(tmp, template);
    return { lite, opened: 'initdb, template saved' };
  } catch {
    // No cache (read-only home, full disk): every new database runs initdb, as without one.
    return { lite, opened: 'initdb' };
  }
}
