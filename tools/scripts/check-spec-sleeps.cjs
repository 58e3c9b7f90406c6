// `npm test` step: specs do not sleep to order events. A spec waits for the
// event it needs (`waitUntil` from @llmgw/testing, a promise, an emitter) or
// drives an injected clock; a fixed pause is either too short on a busy
// machine (flaky) or too long everywhere (slow). Test code is *.spec.ts and
// everything under a test/ folder of apps/ and libs/.
//
// A timer that is part of the scenario, not a wait — a fake engine's own
// delay, a deadline raced against a call, a pause between requests of a load
// generator — is listed in ALLOWED with its reason. PENDING lists waits
// still to be replaced; it is empty and may only shrink.
//   node tools/scripts/check-spec-sleeps.cjs
const fs = require('node:fs');
const path = require('node:path');
const { tsFiles, relTo } = require('./ts-files.cjs');

const ROOTS = ['apps', 'libs'];
/** Any of these on a line of test code is a timer (jest.setTimeout is not). */
const TIMER = /(?<![.\w])setTimeout\s*\(|\bsleep\s*\(|timers\/promises|\bsetTimeoutP\s*\(/;

/** Legitimate timers: file → [text on the line, reason]. */
const ALLOWED = {
  'apps/placement-scheduler/test/capacity.spec.ts': [
    ['setTimeout(r, 50)', 'an idle client of the oscillating load generator pacing its check of how many clients should run: load shape, not a wait'],
  ],
  'apps/router/test/raw-http.ts': [['no complete response within', 'a deadline on a raw HTTP exchange, not a wait']],
  'apps/router/test/prefix-routing.spec.ts': [
    ['setTimeout(r, 0)', 'a zero-delay yield so libuv refreshes its cached loop time before zeromq arms a receive timeout: not a wait'],
  ],
  'apps/router/test/reliability.spec.ts': [
    ['res.socket?.destroy()', 'the fake upstream drops the connection mid-response: the fault under test'],
    ["res.end('data:", 'the fake upstream streams its second chunk late: the slow engine under test'],
  ],
  'apps/up/test/spawn-up.ts': [["r('still running')", 'a deadline raced against the process exit, not a wait']],
  'apps/up/test/grpc-fuzz.spec.ts': [['IDLE_WINDOW_MS', 'measures event-loop lag over an idle window: the quiet period is the measurement']],
  'apps/placement-scheduler/test/fleet.ts': [['this.gapMs', 'the simulated fleet spaces its reports as real agents do']],
  'apps/admission/test/isolation-harness.ts': [
    ['this.o.platinumGapMs', 'the load generator paces platinum requests: the workload, not a wait'],
    ['this.o.warmupMs', 'the load generator warms the pool for a configured time before measuring'],
    ['setTimeout(r, BACKOFF_MS)', 'a refused flood client backs off before its next request: the workload'],
    ['setTimeout(r, SAMPLE_EVERY_MS)', 'the sampler reads metrics at a fixed rate: the sampling period is the measurement'],
    [
      'this.o.scrapeIntervalMs * IDLE_SCRAPES',
      'the benchmark lets the scrapers see the fleet idle for a few intervals before its idle baseline: the protocol, not an event wait',
    ],
  ],
  'libs/grpc/src/stream.spec.ts': [['ctx.write({ tick: 1 })', 'the test server streams a tick every 10 ms: the workload']],
  'libs/admission-rpc/src/credits.spec.ts': [["res('waiting')", 'a deadline raced against acquire to show it is still waiting']],
};

/**
 * Waits still to be replaced by events or injected clocks (file → count of
 * lines). Empty: every spec waits for its event. Libraries below
 * libs/testing, which cannot import @llmgw/testing (it depends on them), use
 * the same helper from @llmgw/contracts/wait.
 */
const PENDING = {};

const isTest = (rel) => rel.endsWith('.spec.ts') || /(^|\/)test\//.test(rel);

/**
 * `found`: timer lines of test code not explained by ALLOWED, per file;
 * `stale`: the ALLOWED entries no timer line matches (the timer they excused
 * is gone, and a new one could hide behind them).
 */
function scan(root, roots = ROOTS, allowed = ALLOWED) {
  const found = new Map();
  const used = new Set();
  for (const abs of tsFiles(root, roots)) {
    const rel = relTo(root, abs);
    if (!isTest(rel)) continue;
    fs.readFileSync(abs, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const code = line.replace(/\/\/.*$/, '');
        if (!TIMER.test(code)) return;
        const excuse = (allowed[rel] ?? []).find(([text]) => line.includes(text));
        if (excuse) return void used.add(`${rel}: ${excuse[0]}`);
        const l = found.get(rel) ?? [];
        l.push({ line: i + 1, text: line.trim() });
        found.set(rel, l);
      });
  }
  const stale = Object.entries(allowed).flatMap(([rel, entries]) => entries.map(([text]) => `${rel}: ${text}`).filter((k) => !used.has(k)));
  return { found, stale };
}

function check(root, pending = PENDING) {
  const { found, stale } = scan(root);
  const problems = [];
  const shrunk = [];
  for (const [rel, hits] of found) {
    const may = pending[rel] ?? 0;
    if (hits.length > may) problems.push({ rel, hits, may });
    else if (hits.length < may) shrunk.push(`${rel}: ${may} → ${hits.length}`);
  }
  for (const [rel, may] of Object.entries(pending)) if (!found.has(rel) && may) shrunk.push(`${rel}: ${may} → 0`);
  return { problems, shrunk, stale };
}

module.exports = { scan, check, TIMER };

if (require.main === module) {
  const root = path.resolve(__dirname, '../..');
  const { problems, shrunk, stale } = check(root);
  if (stale.length) {
    console.error('ALLOWED entries in tools/scripts/check-spec-sleeps.cjs that match no timer any more (remove them):');
    for (const s of stale) console.error(`  ${s}`);
  }
  for (const s of shrunk) console.log(`note: fewer sleeps than PENDING allows in ${s}; lower it in tools/scripts/check-spec-sleeps.cjs`);
  if (problems.length) {
    console.error('specs that sleep to wait (use waitUntil from @llmgw/testing, an event, or an injected clock;');
    console.error('a timer that is part of the scenario goes into ALLOWED in tools/scripts/check-spec-sleeps.cjs with its reason):');
    for (const p of problems) for (const h of p.hits) console.error(`  ${p.rel}:${h.line}: ${h.text}`);
    process.exit(1);
  }
  if (stale.length) process.exit(1);
  console.log('no spec sleeps to wait (beyond the listed scenario timers and the pending list)');
}
