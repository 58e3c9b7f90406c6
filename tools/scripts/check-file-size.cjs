// `npm test` step: no non-test TypeScript file under apps/, libs/ or tools/ is
// longer than MAX_LINES. A long file mixes concerns; put new code in a new,
// well-named file beside it. Test code (*.spec.ts,
// test/ folders, lint fixtures) and generated code are not counted.
//   node tools/scripts/check-file-size.cjs
const fs = require('node:fs');
const path = require('node:path');
const { tsFiles, relTo } = require('./ts-files.cjs');

const MAX_LINES = 450;
const ROOTS = ['apps', 'libs', 'tools'];

/** Files allowed over the limit, each with the reason it must stay whole. */
const ALLOWED = {
  'libs/admission-core/src/controller.ts':
    'the admission controller (issue 22 names it as the exception): one class owning the per-band queues, leases, pool saturation and slot learning that every admit decision reads together',
};

const isTest = (rel) => rel.endsWith('.spec.ts') || rel.endsWith('.fixture.ts') || /(^|\/)(test|lint-fixtures|__fixtures__)\//.test(rel);
const isGenerated = (rel) => /(^|\/)generated\//.test(rel);

function check(root) {
  const over = [];
  const stale = new Set(Object.keys(ALLOWED));
  for (const abs of tsFiles(root, ROOTS)) {
    const rel = relTo(root, abs);
    if (isTest(rel) || isGenerated(rel)) continue;
    const text = fs.readFileSync(abs, 'utf8');
    const lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines <= MAX_LINES) continue;
    if (ALLOWED[rel]) {
      stale.delete(rel);
      continue;
    }
    over.push({ rel, lines });
  }
  return { over: over.sort((a, b) => b.lines - a.lines), stale: [...stale].filter((rel) => fs.existsSync(path.join(root, rel))) };
}

module.exports = { check, MAX_LINES, ALLOWED };

if (require.main === module) {
  const root = path.resolve(__dirname, '../..');
  const { over, stale } = check(root);
  for (const rel of stale)
    console.log(`note: ${rel} is on the allow-list but no longer over ${MAX_LINES} lines; remove it from tools/scripts/check-file-size.cjs`);
  if (over.length) {
    console.error(`${over.length} non-test TypeScript file(s) over ${MAX_LINES} lines — split by concern into files beside them:`);
    for (const o of over) console.error(`  ${o.rel}: ${o.lines} lines`);
    process.exit(1);
  }
  console.log(`no non-test TypeScript file over ${MAX_LINES} lines (allowed: ${Object.keys(ALLOWED).join(', ')})`);
}
