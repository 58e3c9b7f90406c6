import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The llmgw package version, read once from the repository's package.json
 * (found upwards from this file, in sources and in bundles alike); "0.0.0-unknown"
 * when no llmgw package.json is found, so a wrong figure is never invented.
 */
export const PACKAGE_VERSION: string = findVersion(__dirname);

function findVersion(start: string): string {
  for (let dir = start, i = 0; i < 8; i++, dir = dirname(dir)) {
    const p = join(dir, 'package.json');
    if (existsSync(p)) {
      try {
        const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'llmgw' && pkg.version) return pkg.version;
      } catch {
        // unreadable: keep looking upwards
      }
    }
    if (dirname(dir) === dir) break;
  }
  return '0.0.0-unknown';
}
