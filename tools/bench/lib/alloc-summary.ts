/**
 * A sampling heap profile (.heapprofile, from lib/alloc-profile.cjs) summarised by who allocates:
 * the bytes each group allocated itself (llmgw's source files through the bundle's source map,
 * npm packages, Node's internals, as lib/cpu-summary.ts groups CPU time), and the same bytes
 * counted under the nearest llmgw frame on their stack (what a line of llmgw asked for, through
 * whatever library did the allocating). With --requests N, bytes per request.
 *
 *   npx tsx tools/bench/lib/alloc-summary.ts file.heapprofile [--map dist/apps/router/main.js.map] [--requests N] [--top 25]
 *     [--lines stages/attempt.ts] (that source file's bytes by line and function)
 */
import type { SourceMap } from 'node:module';
import { groupOf, summaryArgs } from './cpu-summary';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface SampleNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SampleNode[];
}

export function allocations(
  head: SampleNode,
  map?: SourceMap,
  bundle?: string,
  lines?: string,
): { total: number; self: Map<string, number>; owner: Map<string, number> } {
  const self = new Map<string, number>();
  const owner = new Map<string, number>();
  let total = 0;
  const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  const walk = (n: SampleNode, nearest: string) => {
    const g = groupOf(n.callFrame, map, bundle, lines);
    const mine = g.startsWith('llmgw ') ? g : nearest;
    if (n.selfSize) {
      total += n.selfSize;
      add(self, g, n.selfSize);
      add(owner, mine, n.selfSize);
    }
    for (const c of n.children) walk(c, mine);
  };
  walk(head, '(no llmgw frame)');
  return { total, self, owner };
}

function main(): void {
  const { profile, map, bundle, requests, top, lines } = summaryArgs(
    'alloc-summary.ts file.heapprofile [--map bundle.js.map] [--requests N] [--top 25] [--lines file]',
    25,
  );
  const { total, self, owner } = allocations(profile.head, map, bundle, lines);
  const size = (b: number) => (requests ? `${(b / requests).toFixed(0).padStart(7)} B/req` : `${(b / 1048576).toFixed(1).padStart(8)} MiB`);
  console.log(
    `allocated ${(total / 1048576).toFixed(0)} MiB (sampled)${requests ? `, ${(total / requests / 1024).toFixed(1)} KiB per request over ${requests}` : ''}`,
  );
  const table = (title: string, m: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [g, b] of [...m].sort((a, c) => c[1] - a[1]).slice(0, top)) console.log(`${((100 * b) / total).toFixed(1).padStart(5)} %${size(b)}  ${g}`);
  };
  table('allocated by (the frame that allocated)', self);
  table('asked for by (the nearest llmgw frame on the stack)', owner);
}

if (require.main === module) main();
