// Preloaded into a role by the benches (NODE_OPTIONS='--require …/cpu-profile.cjs',
// LLMGW_CPU_PROF_DIR=dir): a V8 CPU profile of the whole process, written to
// dir/<role>-<pid>.cpuprofile when it exits (Node refuses --cpu-prof in NODE_OPTIONS).
'use strict';
const dir = process.env.LLMGW_CPU_PROF_DIR;
if (dir) {
  const inspector = require('node:inspector');
  const fs = require('node:fs');
  const path = require('node:path');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env.LLMGW_CPU_PROF_INTERVAL_US ?? 250) });
  session.post('Profiler.start');
  process.on('exit', () => {
    // The in-thread session answers synchronously, so this runs to the end inside 'exit'.
    session.post('Profiler.stop', (err, r) => {
      if (!err) fs.writeFileSync(path.join(dir, `${process.argv[2] ?? 'node'}-${process.pid}.cpuprofile`), JSON.stringify(r.profile));
    });
  });
}
