// Preloaded by the benches (NODE_OPTIONS='--require …/gc-stats.cjs', LLMGW_GC_STATS_DIR=dir): what
// each young-generation GC (scavenge) of the process keeps and costs, per 5 s window, from V8's
// GCProfiler (the heap's spaces before and after every GC). Written to
// dir/<role>-<config>-<pid>.json when the process exits; print with lib/gc-summary.ts.
//
// A scavenge copies what is still alive in the young generation: its cost follows the bytes that
// survive it, not the bytes allocated. What survives twice is promoted to the old generation and
// waits there for a mark-compact.
'use strict';
const dir = process.env.LLMGW_GC_STATS_DIR;
if (dir) {
  const v8 = require('node:v8');
  const fs = require('node:fs');
  const path = require('node:path');
  const WINDOW_MS = 5000;
  const started = performance.now();
  const windows = [];
  const used = (h, space) => h.heapSpaceStatistics.find((s) => s.spaceName === space)?.spaceUsedSize ?? 0;
  let profiler = new v8.GCProfiler();
  profiler.start();
  const roll = () => {
    const data = profiler.stop();
    profiler = new v8.GCProfiler();
    profiler.start();
    const gcs = data?.statistics ?? [];
    const sc = gcs.filter((s) => s.gcType === 'Scavenge');
    const sum = (f) => sc.reduce((a, s) => a + f(s), 0);
    windows.push({
      endS: Math.round((performance.now() - started) / 100) / 10,
      scavenges: sc.length,
      otherGcs: gcs.length - sc.length,
      // Mark-compacts and incremental marking steps: what they cost in all, and the longest one.
      otherUs: gcs.reduce((a, s) => a + (s.gcType === 'Scavenge' ? 0 : s.cost), 0),
      longestOtherUs: gcs.reduce((a, s) => (s.gcType === 'Scavenge' ? a : Math.max(a, s.cost)), 0),
      scavengeUs: sum((s) => s.cost),
      allocatedBytes: sum((s) => used(s.beforeGC, 'new_space')),
      survivedBytes: sum((s) => used(s.afterGC, 'new_space')),
      promotedBytes: sum((s) => Math.max(0, used(s.afterGC, 'old_space') - used(s.beforeGC, 'old_space'))),
    });
  };
  setInterval(roll, WINDOW_MS).unref();
  process.on('exit', () => {
    roll();
    profiler.stop();
    const config = process.argv.indexOf('--config');
    const label = config > 0 ? `-${path.basename(process.argv[config + 1], '.yaml')}` : '';
    const script = process.argv[1] ?? 'node';
    const role = /llmgw\.cjs$/.test(script) ? process.argv[2] : path.basename(script, '.cjs');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${role}${label}-${process.pid}.json`), JSON.stringify(windows));
  });
}
