/**
 * A V8 CPU profile (.cpuprofile, from `--cpu-prof` or lib/cpu-profile.cjs) summarised by where
 * the time went: llmgw's own code by source file (through the bundle's source map), each
 * node_modules package, Node's internals, and V8's native entries (GC, syscalls such as writev).
 * Shares are of the busy time (idle excluded); with --requests N also microseconds per request.
 *
 *   npx tsx tools/bench/lib/cpu-summary.ts file.cpuprofile [--map dist/apps/router/main.js.map] [--requests N] [--top 40]
 *     [--lines stages/attempt.ts] (that source file's time by line and function)
 *     [--from-s S --to-s S] (only the samples between S and S seconds after the profile started: the
 *     start of a load phase against its end, say; --requests then counts the window's requests)
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { basename } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface Profile {
  nodes: Array<{ id: number; callFrame: CallFrame }>;
  samples: number[];
  timeDeltas: number[];
}

/** The group a frame's self time counts to. */
export function groupOf(f: CallFrame, map: SourceMap | undefined, bundle: string | undefined, lines?: string): string {
  const url = f.url;
  if (!url) return `(native) ${f.functionName || '(anonymous)'}`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `npm ${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:'))
    return `node ${
      url
        .slice(5)
        .replace(/^internal\//, '')
        .split('/')[0]
    }`;
  if (map && bundle && basename(url) === bundle) {
    const e = map.findEntry(f.lineNumber, f.columnNumber) as { originalSource?: string; originalLine?: number };
    const src = e.originalSource?.replace(/^.*?\/(apps|libs)\//, '$1/');
    if (!src) return 'llmgw (unmapped)';
    // --lines SUBSTRING: that file's time by function and line.
    return lines && src.includes(lines) ? `llmgw ${src}:${(e.originalLine ?? 0) + 1} ${f.functionName || '(anonymous)'}` : `llmgw ${src}`;
  }
  return `other ${basename(url)}`;
}

export function summarise(profile: Profile, map?: SourceMap, bundle?: string, lines?: string): { busyUs: number; groups: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const groups = new Map<string, number>();
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const f = byId.get(profile.samples[i])!;
    if (f.functionName === '(idle)') continue;
    const dt = profile.timeDeltas[i] ?? 0;
    busyUs += dt;
    const g = groupOf(f, map, bundle, lines);
    groups.set(g, (groups.get(g) ?? 0) + dt);
  }
  return { busyUs, groups };
}

/** The profile with only its samples from `fromS` to `toS` seconds after it started. */
export function windowed(profile: Profile, fromS: number, toS: number): Profile {
  if (fromS <= 0 && toS === Infinity) return profile;
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    if (t < fromS * 1e6 || t >= toS * 1e6) continue;
    samples.push(profile.samples[i]);
    timeDeltas.push(profile.timeDeltas[i] ?? 0);
  }
  return { ...profile, samples, timeDeltas };
}

/** A summary tool's command line: the profile file, the bundle's source map, --requests, --top, --lines, --from-s, --to-s. */
export function summaryArgs(usage: string, defaultTop: number) {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const file = argv.find((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'));
  if (!file) throw new Error(`usage: ${usage}`);
  const mapFile = opt('map');
  return {
    profile: JSON.parse(readFileSync(file, 'utf8')),
    map: mapFile ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined,
    bundle: mapFile ? basename(mapFile, '.map') : undefined,
    requests: Number(opt('requests') ?? 0),
    top: Number(opt('top') ?? defaultTop),
    lines: opt('lines'),
    fromS: Number(opt('from-s') ?? 0),
    toS: Number(opt('to-s') ?? Infinity),
  };
}

function main(): void {
  const { profile, map, bundle, requests, top, lines, fromS, toS } = summaryArgs(
    'cpu-summary.ts file.cpuprofile [--map bundle.js.map] [--requests N] [--top 40] [--from-s S --to-s S]',
    40,
  );
  const { busyUs, groups } = summarise(windowed(profile, fromS, toS), map, bundle, lines);
  console.log(`busy ${(busyUs / 1000).toFixed(0)} ms${requests ? `, ${(busyUs / requests).toFixed(1)} µs per request over ${requests}` : ''}`);
  // Totals by kind first (llmgw, npm, node, native), then the largest groups.
  const kinds = new Map<string, number>();
  for (const [g, us] of groups) kinds.set(g.split(' ')[0], (kinds.get(g.split(' ')[0]) ?? 0) + us);
  const line = (name: string, us: number) =>
    `${((100 * us) / busyUs).toFixed(1).padStart(5)} %${requests ? `${(us / requests).toFixed(1).padStart(8)} µs/req` : ''}  ${name}`;
  for (const [k, us] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(line(`(all ${k})`, us));
  console.log('');
  for (const [g, us] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(g, us));
}

if (require.main === module) main();
