import { Eta } from 'eta';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The directory holding apps/portal/{views,assets}: next to the sources, or,
 * from a bundle (dist/apps/<role>/main.js), found by walking up to the repository.
 */
export function portalDir(): string {
  for (let d = __dirname; ; d = dirname(d)) {
    if (existsSync(join(d, 'views', 'layout.eta')) && existsSync(join(d, 'assets', 'app.js'))) return d;
    // Another role's bundle (dist/apps/up) finds the portal bundle's copy beside it (dist/apps/portal).
    const sibling = join(d, 'portal');
    if (existsSync(join(sibling, 'views', 'layout.eta')) && existsSync(join(sibling, 'assets', 'app.js'))) return sibling;
    const inRepo = join(d, 'apps', 'portal');
    if (existsSync(join(inRepo, 'views', 'layout.eta'))) return inRepo;
    if (dirname(d) === d) throw new Error('apps/portal/views not found beside the portal code');
  }
}

/** Server-rendered pages (Eta; every `<%= %>` is HTML-escaped). Templates are read once and cached. */
export function makeRenderer(dir = portalDir()): (view: string, data: object) => string {
  const eta = new Eta({ views: join(dir, 'views'), cache: true, autoEscape: true });
  return (view, data) => eta.render(`./${view}`, data);
}
