/**
 * Priority isolation on real processes (docs/performance.md; issue 13): a
 * bronze flood saturates sim-engines while platinum TTFT is measured against
 * its idle value, with admission on (router → admission service) and off.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/priority-isolation.ts          # large batch: 3 × 32 slots, 500 bronze
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/priority-isolation.ts --quick  # CI size of the large-batch shape
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/priority-isolation.ts --slots  # slot-limited: 2 × 8 slots, 320 bronze, short prompts
 */
import { CI_OPTIONS, IsolationRig, SLOT_OPTIONS, type IsolationOptions } from '../../apps/admission/test/isolation-harness';

async function run(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const slots = process.argv.includes('--slots');
  const log = (l: string) => console.log(l);
  const o: IsolationOptions = slots
    ? { ...SLOT_OPTIONS, platinumSamples: 100, log }
    : quick
      ? { ...CI_OPTIONS, log }
      : { ...CI_OPTIONS, engines: 3, maxNumSeqs: 32, bronzeConcurrency: 500, platinumSamples: 100, warmupMs: 8000, log };
  const num = (flag: string) => {
    const i = process.argv.indexOf(flag);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  o.engines = num('--engines') ?? o.engines;
  o.maxNumSeqs = num('--max-num-seqs') ?? o.maxNumSeqs;
  o.platinumSamples = num('--samples') ?? o.platinumSamples;
  o.bronzeConcurrency = num('--bronze') ?? o.bronzeConcurrency;
  o.scrapeIntervalMs = num('--scrape-ms') ?? o.scrapeIntervalMs;
  o.warmupMs = num('--warmup-ms') ?? o.warmupMs;
  o.declareSlots = process.argv.includes('--declared');
  if (process.argv.includes('--default-profile')) o.replicaChoice = 'default';
  const onOnly = process.argv.includes('--on-only');
  const shape = slots ? 'slot-limited' : quick ? 'quick' : 'full';
  console.log(
    `priority isolation (${shape}): ${o.engines} engines × max-num-seqs ${o.maxNumSeqs} (${o.declareSlots ? 'declared' : 'undeclared: learned'}), decode ${o.decodeTps} tok/s, ${o.bronzeConcurrency} concurrent bronze, ${o.platinumSamples} platinum samples of ${o.platinumPromptChars} chars`,
  );
  const rig = new IsolationRig(o);
  await rig.startEngines();
  try {
    const on = await rig.phase(true);
    const off = onOnly ? undefined : await rig.phase(false);
    console.log(
      `platinum TTFT under load / idle: admission on p90 ${on.ratio90.toFixed(2)}x p99 ${on.ratio.toFixed(2)}x${off ? `, admission off p90 ${off.ratio90.toFixed(2)}x p99 ${off.ratio.toFixed(2)}x` : ''}`,
    );
    // The same requests on the engines' clocks (GET /sim/requests): what queueing did, apart from the machine's load.
    const eng = (r: typeof on) =>
      `p90 ${(r.engineLoadedP90 / Math.max(1, r.engineIdleP90)).toFixed(2)}x, ${r.platinumWaitedForSlot} of ${r.platinumAtEngine} waited for a slot`;
    console.log(`at the engines: admission on ${eng(on)}${off ? `; admission off ${eng(off)}` : ''}`);
  } finally {
    await rig.close();
  }
}

run().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
