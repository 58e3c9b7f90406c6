// The TypeScript files under some top-level folders of the repository, for
// the house checks (check-file-size, check-import-cycles, check-spec-sleeps).
const fs = require('node:fs');
const path = require('node:path');

const SKIP = new Set(['node_modules', 'dist']);

/** Every .ts (not .d.ts) file below `root/<each of roots>`, skipping node_modules, dist and dot-folders. */
function tsFiles(root, roots) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (SKIP.has(e.name) || e.name.startsWith('.')) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const r of roots) if (fs.existsSync(path.join(root, r))) walk(path.join(root, r));
  return out;
}

/** A path relative to the repository root, with forward slashes. */
const relTo = (root, abs) => path.relative(root, abs).split(path.sep).join('/');

module.exports = { tsFiles, relTo };
