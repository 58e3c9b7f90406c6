/**
 * A V8 heap snapshot summarised by constructor: count and self size of each,
 * largest first, optionally divided by a number of streams (issue 23: where
 * the router's memory per stream goes).
 *
 *   npx tsx tools/bench/lib/heap-summary.ts file.heapsnapshot [--per N] [--top 40] [--minus base.heapsnapshot] [--owners]
 *
 * --owners: every node's self size goes to its owner instead of its own constructor — the nearest
 * object on its shortest path from the roots that has a constructor of its own (not a plain
 * Object, Array, Map, Set or context) or is a closure (named with its script id, line and column).
 * Arrays, strings and closure contexts then show under what holds them (a response's header
 * block under ServerResponse, a suspended async function's registers under Generator).
 */
import { readFileSync } from 'node:fs';

interface Row {
  count: number;
  bytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]]; location_fields?: string[] } };
  nodes: number[];
  edges: number[];
  strings: string[];
  locations?: number[];
}

export function summarise(file: string, owners = false): Map<string, Row> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const types = meta.node_types[0];
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => meta.node_fields.indexOf(f));
  const { nodes, strings } = snap;
  const typeOf = (n: number) => types[nodes[n * nf + iType]];
  const nameOf = (n: number) => strings[nodes[n * nf + iName]];
  const count = nodes.length / nf;
  // Objects by constructor; everything else (strings, code, arrays' backing stores…) by its type.
  const keyOf = (n: number) => {
    const type = typeOf(n);
    return type === 'object' || type === 'closure' ? `${type === 'closure' ? 'closure ' : ''}${nameOf(n)}` : `(${type})`;
  };
  const owner = owners ? ownersOf(snap, typeOf, nameOf) : undefined;
  const out = new Map<string, Row>();
  for (let n = 0; n < count; n++) {
    const key = owner ? owner.label(n) : keyOf(n);
    if (key === undefined) continue;
    const r = out.get(key) ?? { count: 0, bytes: 0 };
    r.count++;
    r.bytes += nodes[n * nf + iSize];
    out.set(key, r);
  }
  return out;
}

const GENERIC = new Set(['Object', 'Array', 'Map', 'Set', 'system / Context']);

/** Each node's owner (see the file's comment), over a breadth-first tree from the snapshot's root; unreachable nodes have none. */
function ownersOf(snap: Snapshot, typeOf: (n: number) => string, nameOf: (n: number) => string): { label(n: number): string | undefined } {
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const edgeTypes = meta.edge_types[0];
  const iEdges = meta.node_fields.indexOf('edge_count');
  const [eType, eTo] = ['type', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
  const { nodes, edges } = snap;
  const count = nodes.length / nf;
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    firstEdge[n] = e;
    e += nodes[n * nf + iEdges] * ef;
  }
  firstEdge[count] = edges.length;
  const parent = new Int32Array(count).fill(-1);
  const queue = new Uint32Array(count);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  parent[0] = 0;
  while (head < tail) {
    const u = queue[head++];
    for (let e = firstEdge[u]; e < firstEdge[u + 1]; e += ef) {
      const t = edgeTypes[edges[e + eType]];
      if (t === 'weak' || t === 'shortcut') continue;
      const v = edges[e + eTo] / nf;
      if (parent[v] === -1) {
        parent[v] = u;
        queue[tail++] = v;
      }
    }
  }
  const where = new Map<number, string>();
  const lf = meta.location_fields?.length ?? 4;
  const locs = snap.locations ?? [];
  for (let i = 0; i < locs.length; i += lf) where.set(locs[i] / nf, `${locs[i + 1]}:${locs[i + 2] + 1}:${locs[i + 3]}`);
  const named = (n: number) => {
    const t = typeOf(n);
    return t === 'closure' || (t === 'object' && !GENERIC.has(nameOf(n)));
  };
  const labelOf = (n: number) => (typeOf(n) === 'closure' ? `closure ${nameOf(n) || '(anonymous)'}@${where.get(n) ?? '?'}` : nameOf(n));
  return {
    label(n) {
      if (parent[n] === -1) return undefined;
      let p = n;
      while (p > 0 && !named(p)) p = parent[p];
      return p > 0 ? labelOf(p) : '(roots)';
    },
  };
}

function main(): void {
  const argv = process.argv.slice(2);
  const opt = (n: string) => {
    const i = argv.indexOf(`--${n}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const per = Number(opt('per') ?? 1);
  const top = Number(opt('top') ?? 40);
  const owners = argv.includes('--owners');
  const rows = summarise(argv[0], owners);
  const base = opt('minus') ? summarise(opt('minus')!, owners) : new Map<string, Row>();
  const diff = [...rows].map(([k, r]) => [k, { count: r.count - (base.get(k)?.count ?? 0), bytes: r.bytes - (base.get(k)?.bytes ?? 0) }] as const);
  const total = diff.reduce((n, [, r]) => n + r.bytes, 0);
  console.log(`total ${(total / 2 ** 20).toFixed(1)} MiB${per !== 1 ? `, ${(total / per).toFixed(0)} B per unit (${per})` : ''}`);
  console.log(`   bytes/unit  count/unit  ${owners ? 'owner' : 'constructor'}`);
  for (const [k, r] of diff.sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
    console.log(`${(r.bytes / per).toFixed(0).padStart(12)} ${(r.count / per).toFixed(2).padStart(11)}  ${k}`);
  }
}

if (require.main === module) main();
