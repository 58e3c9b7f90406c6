/**
 * Prints what lib/gc-stats.cjs wrote: per process, its scavenges in each 5 s window (how many,
 * their mean cost, what survived each and what each promoted) and its other GCs (mark-compacts and
 * marking steps: how many, their total cost and the longest), then the windows from --from S on
 * together.
 *
 *   npx tsx tools/bench/lib/gc-summary.ts DIR/*.json [--from 10]
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { arg } from './open-loop';

interface Window {
  endS: number;
  scavenges: number;
  otherGcs: number;
  /** Absent in files written before they were recorded. */
  otherUs?: number;
  longestOtherUs?: number;
  scavengeUs: number;
  allocatedBytes: number;
  survivedBytes: number;
  promotedBytes: number;
}

const KiB = 1024;

function row(label: string, ws: Window[]): string {
  const n = ws.reduce((a, w) => a + w.scavenges, 0);
  const sum = (k: keyof Window) => ws.reduce((a, w) => a + (w[k] ?? 0), 0);
  const longest = ws.reduce((a, w) => Math.max(a, w.longestOtherUs ?? 0), 0);
  if (!n) return `  ${label.padEnd(10)} no scavenge`;
  return [
    `  ${label.padEnd(10)}`,
    `${String(n).padStart(5)} scavenges`,
    `${(sum('scavengeUs') / n / 1000).toFixed(2).padStart(6)} ms each`,
    `survived ${(sum('survivedBytes') / n / KiB).toFixed(0).padStart(5)} KiB`,
    `promoted ${(sum('promotedBytes') / n / KiB).toFixed(0).padStart(5)} KiB`,
    `of ${(sum('allocatedBytes') / n / KiB).toFixed(0).padStart(5)} KiB`,
    `${String(sum('otherGcs')).padStart(3)} other GCs`,
    `(${(sum('otherUs') / 1000).toFixed(1)} ms, longest ${(longest / 1000).toFixed(1)} ms)`,
  ].join('  ');
}

function main(): void {
  const from = Number(arg('from') ?? 0);
  const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  if (!files.length) throw new Error('usage: gc-summary.ts DIR/*.json [--from S]');
  for (const f of files) {
    const windows = JSON.parse(readFileSync(f, 'utf8')) as Window[];
    console.log(basename(f, '.json'));
    for (const w of windows) if (w.scavenges) console.log(row(`≤ ${w.endS} s`, [w]));
    console.log(
      row(
        `from ${from} s`,
        windows.filter((w) => w.endS > from),
      ),
    );
  }
}

main();
