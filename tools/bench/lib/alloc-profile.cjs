// Preloaded into a role by the benches (NODE_OPTIONS='--require …/alloc-profile.cjs',
// LLMGW_ALLOC_PROF_DIR=dir): V8's sampling heap profile of everything the process allocates,
// garbage included (one sample every 16 KiB), written to dir/<role>-<pid>.heapprofile when it
// exits. Summarise with lib/alloc-summary.ts. LLMGW_ALLOC_PROF_SURVIVORS=1: only what outlives the
// young generation (still live at exit, or promoted and left for a mark-compact), leaving out what
// the scavenges collect: what fills the old generation.
'use strict';
const dir = process.env.LLMGW_ALLOC_PROF_DIR;
if (dir) {
  const inspector = require('node:inspector');
  const fs = require('node:fs');
  const path = require('node:path');
  const session = new inspector.Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: process.env.LLMGW_ALLOC_PROF_SURVIVORS !== '1',
  });
  process.on('exit', () => {
    // The in-thread session answers synchronously, so this runs to the end inside 'exit'.
    session.post('HeapProfiler.stopSampling', (err, r) => {
      if (!err) fs.writeFileSync(path.join(dir, `${process.argv[2] ?? 'node'}-${process.pid}.heapprofile`), JSON.stringify(r.profile));
    });
  });
}
