import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findRepoRoot } from '@llmgw/testing';

/**
 * The short CI version of the routing-quality harness (tools/bench/routing-quality.ts,
 * issue 12): real routers and KV-publishing sim-engines, a multi-turn workload with
 * shared system prompts, hit rates from the engines' own counters. Hit rates, not
 * latencies, are asserted: they come from where requests were sent, not from how
 * fast the machine is. The full harness and its tables are in docs/performance.md.
 */
const run = promisify(execFile);
const root = findRepoRoot();

interface Row {
  hit: number;
  ceiling: number;
}

async function harness(args: string[]): Promise<Record<string, Row>> {
  const { stdout } = await run(
    process.execPath,
    [
      join(root, 'node_modules/tsx/dist/cli.mjs'),
      '--tsconfig',
      join(root, 'tsconfig.base.json'),
      join(root, 'tools/bench/routing-quality.ts'),
      '--quick',
      '--engines',
      '4',
      '--json',
      // Tier 2 keys every request however loaded the runner (the default 50 ms bound would fall back to tier 1).
      '--tokenize-timeout',
      '60000',
      ...args,
    ],
    { cwd: root, maxBuffer: 16 * 1024 * 1024, timeout: 280_000 },
  );
  const last = stdout.trim().split('\n').pop()!;
  return JSON.parse(last) as Record<string, Row>;
}

describe('routing quality (CI size: 4 sim-engines, 12 conversations × 4 turns)', () => {
  it("tier 1 reaches the ceiling any routing could, far above round robin; with the routers' Redis down only tier 2 keeps it", async () => {
    // With one router the Redis outage changes nothing; with two, each tree holds only its own router's sends.
    const r = await harness(['--configs', 'rr/1,tier1/1,tier1/2,tier2/2', '--share-down']);
    expect(r['tier1/1'].hit).toBeGreaterThanOrEqual(r['tier1/1'].ceiling * 0.9);
    expect(r['tier1/1'].hit).toBeGreaterThan(r['rr/1'].hit + 20);
    expect(r['tier2/2'].hit).toBeGreaterThanOrEqual(r['tier2/2'].ceiling * 0.9);
    expect(r['tier2/2'].hit).toBeGreaterThanOrEqual(r['tier1/2'].hit + 5);
  }, 300_000);
});
