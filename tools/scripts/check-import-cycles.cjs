// `npm test` step: no import cycle between the files of apps/ and libs/.
// Reads every relative import and re-export (`import … from './x'`,
// `export … from '../y'`, `import('./z')`, type-only ones too: a type cycle
// is still two files that cannot be read apart) and reports every strongly
// connected component with more than one file, with one cycle through it.
// Cycles between projects are Nx's: `@nx/enforce-module-boundaries` refuses
// them in lint.
//   node tools/scripts/check-import-cycles.cjs            the repository
//   node tools/scripts/check-import-cycles.cjs --self-test
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { tsFiles, relTo } = require('./ts-files.cjs');

const ROOTS = ['apps', 'libs'];
/** Cycles allowed for now, as the sorted files of their component joined by ' <-> ', each with its reason. */
const ALLOWED = {};

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*${},\s]+?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Comments out, strings kept (the import specifiers are strings). */
const stripComments = (s) => s.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');

function resolve(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  const bare = base.replace(/\.(js|mjs|cjs)$/, '');
  for (const c of [base, `${bare}.ts`, `${bare}.tsx`, `${bare}.mts`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  }
  return undefined;
}

function graph(root, roots) {
  const files = tsFiles(root, roots);
  const edges = new Map();
  for (const f of files) {
    const text = stripComments(fs.readFileSync(f, 'utf8'));
    const to = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const r = resolve(f, m[1] ?? m[2]);
      if (r) to.add(r);
    }
    edges.set(f, [...to]);
  }
  return edges;
}

/** Tarjan's strongly connected components, iteratively (deep graphs do not overflow the stack). */
function components(edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const out = [];
  for (const start of edges.keys()) {
    if (idx.has(start)) continue;
    const work = [[start, 0]];
    idx.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1];
      const [v, i] = top;
      const next = edges.get(v) ?? [];
      if (i < next.length) {
        top[1]++;
        const w = next[i];
        if (!edges.has(w)) continue;
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const u = work[work.length - 1][0];
        low.set(u, Math.min(low.get(u), low.get(v)));
      }
      if (low.get(v) === idx.get(v)) {
        const comp = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          comp.push(w);
        } while (w !== v);
        if (comp.length > 1) out.push(comp);
      }
    }
  }
  return out;
}

/** One cycle inside a component, as a path a → … → a (breadth-first, so a short one). */
function cycleIn(comp, edges) {
  const inComp = new Set(comp);
  const start = [...comp].sort()[0];
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of edges.get(v) ?? []) {
      if (!inComp.has(w)) continue;
      if (w === start) {
        const p = [start];
        for (let x = v; x !== start; x = prev.get(x)) p.splice(1, 0, x);
        return [...p, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

function check(root, roots = ROOTS, allowed = ALLOWED) {
  const edges = graph(root, roots);
  const rel = (f) => relTo(root, f);
  const found = components(edges).map((comp) => ({ key: comp.map(rel).sort().join(' <-> '), cycle: cycleIn(comp, edges).map(rel) }));
  return { cycles: found.filter((c) => !allowed[c.key]), allowedSeen: found.filter((c) => allowed[c.key]).map((c) => c.key), files: edges.size };
}

function selfTest() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'llmgw-cycles-'));
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  try {
    // a → b → c → a (a type-only import closes it), d → a (not in the cycle), e ↔ f/index through a re-export.
    write('libs/x/src/a.ts', "import { b } from './b';\nexport const a = b;\n");
    write('libs/x/src/b.ts', "// import { nope } from './d';\nimport { c } from './sub/c';\nexport const b = c;\n");
    write('libs/x/src/sub/c.ts', "import type { A } from '../types';\nimport type { a } from '../a';\nexport const c = 1 as A;\nexport type T = typeof a;\n");
    write('libs/x/src/types.ts', 'export type A = number;\n');
    write('libs/x/src/d.ts', "import { a } from './a';\nexport const d = a;\n");
    write('apps/y/src/e.ts', "export * from './f';\nexport const e = 1;\n");
    write('apps/y/src/f/index.ts', "export const f = async () => (await import('../e')).e;\n");
    const r = check(dir);
    const keys = r.cycles.map((c) => c.key).sort();
    const want = ['apps/y/src/e.ts <-> apps/y/src/f/index.ts', 'libs/x/src/a.ts <-> libs/x/src/b.ts <-> libs/x/src/sub/c.ts'];
    if (JSON.stringify(keys) !== JSON.stringify(want)) throw new Error(`self-test: found ${JSON.stringify(keys)}, wanted ${JSON.stringify(want)}`);
    const abc = r.cycles.find((c) => c.key.startsWith('libs/')).cycle;
    if (abc.length !== 4 || abc[0] !== abc[3]) throw new Error(`self-test: bad cycle path ${abc.join(' -> ')}`);
    // Allowed cycles are not reported; breaking one (c no longer imports a) leaves only the other.
    if (check(dir, ROOTS, { [want[0]]: 'fixture' }).cycles.length !== 1) throw new Error('self-test: the allow-list was not applied');
    write('libs/x/src/sub/c.ts', "import type { A } from '../types';\nexport const c = 1 as A;\n");
    if (
      check(dir)
        .cycles.map((c) => c.key)
        .join() !== want[0]
    )
      throw new Error('self-test: a broken cycle is still reported');
    console.log('self-test ok: cycles found through value, type-only, re-export, index and dynamic imports; comments ignored');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { check };

if (require.main === module) {
  if (process.argv.includes('--self-test')) {
    selfTest();
    process.exit(0);
  }
  const root = path.resolve(__dirname, '../..');
  const { cycles, files } = check(root);
  if (cycles.length) {
    console.error(`${cycles.length} import cycle(s) in apps/ and libs/ (break each, e.g. move the shared types into a file both import):`);
    for (const c of cycles) console.error(`  ${c.cycle.join(' -> ')}`);
    process.exit(1);
  }
  console.log(`no import cycle among ${files} files in apps/ and libs/`);
}
