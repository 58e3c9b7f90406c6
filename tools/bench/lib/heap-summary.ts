/**
 * A V8 heap snapshot summarised by constructor: count and self size of each,
 * largest first, optionally divided by a number of streams (issue 23: where
 * the router's memory per stream goes).
 *
 *   npx tsx tools/bench/lib/heap-summary.ts file.heapsnapshot [--per N] [--top 40] [--minus base.heapsnapshot]
 */
import { readFileSync } from 'node:fs';

interface Row {
  count: number;
  bytes: number;
}

export function summarise(file: string): Map<string, Row> {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const fields: string[] = snap.snapshot.meta.node_fields;
  const types: string[] = snap.snapshot.meta.node_types[0];
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const nodes: number[] = snap.nodes;
  const strings: string[] = snap.strings;
  const out = new Map<string, Row>();
  for (let i = 0; i < nodes.length; i += fields.length) {
    const type = types[nodes[i + iType]];
    // Objects by constructor; everything else (strings, code, arrays' backing stores…) by its type.
    const key = type === 'object' || type === 'closure' ? `${type === 'closure' ? 'closure ' : ''}${strings[nodes[i + iName]]}` : `(${type})`;
    const r = out.get(key) ?? { count: 0, bytes: 0 };
    r.count++;
    r.bytes += nodes[i + iSize];
    out.set(key, r);
  }
  return out;
}

function main(): void {
  const argv = process.argv.slice(2);
  const opt = (n: string) => {
    const i = argv.indexOf(`--${n}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const per = Number(opt('per') ?? 1);
  const top = Number(opt('top') ?? 40);
  const rows = summarise(argv[0]);
  const base = opt('minus') ? summarise(opt('minus')!) : new Map<string, Row>();
  const diff = [...rows].map(([k, r]) => [k, { count: r.count - (base.get(k)?.count ?? 0), bytes: r.bytes - (base.get(k)?.bytes ?? 0) }] as const);
  const total = diff.reduce((n, [, r]) => n + r.bytes, 0);
  console.log(`total ${(total / 2 ** 20).toFixed(1)} MiB${per !== 1 ? `, ${(total / per).toFixed(0)} B per unit (${per})` : ''}`);
  console.log('   bytes/unit  count/unit  constructor');
  for (const [k, r] of diff.sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
    console.log(`${(r.bytes / per).toFixed(0).padStart(12)} ${(r.count / per).toFixed(2).padStart(11)}  ${k}`);
  }
}

if (require.main === module) main();
