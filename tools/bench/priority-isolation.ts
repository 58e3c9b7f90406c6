/**
 * Phase 1.5 exit criterion at full size (plan §11): 500 concurrent bronze
 * requests saturate sim-engines while platinum TTFT p99 is measured against
 * its idle value, with admission on (router → admission service) and off.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/priority-isolation.ts          # full: 500 bronze
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/priority-isolation.ts --quick  # CI size
 */
import { CI_OPTIONS, IsolationRig, type IsolationOptions } from '../../apps/admission/test/isolation-harness';

async function run(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const o: IsolationOptions = quick
    ? { ...CI_OPTIONS, log: (l) => console.log(l) }
    : { ...CI_OPTIONS, engines: 3, maxNumSeqs: 32, bronzeConcurrency: 500, platinumSamples: 100, warmupMs: 8000, log: (l) => console.log(l) };
  console.log(`priority isolation (${quick ? 'quick' : 'full'}): ${o.engines} engines × max-num-seqs ${o.maxNumSeqs}, decode ${o.decodeTps} tok/s, ${o.bronzeConcurrency} concurrent bronze, ${o.platinumSamples} platinum samples`);
  const rig = new IsolationRig(o);
  await rig.startEngines();
  try {
    const on = await rig.phase(true);
    const off = await rig.phase(false);
    console.log(`platinum TTFT p99 under load / idle: admission on ${on.ratio.toFixed(2)}x (criterion < 1.5x), admission off ${off.ratio.toFixed(2)}x`);
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
