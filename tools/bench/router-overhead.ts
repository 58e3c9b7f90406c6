/**
 * Router overhead benchmark (issue 3, docs/router.md):
 *
 *  1. Latency the router adds: open-loop load of short non-streaming chat
 *     completions (max_tokens 1) at each rate, straight at one sim-engine and
 *     through the router in front of three sim-engines, in the same run;
 *     prints p50/p99 of each and the difference.
 *  2. Concurrent long streams through the router: errors and router RSS.
 *  3. Cancellation: time from a client aborting a stream to the engine's
 *     running count dropping (the slot freed).
 *
 * Every process is real (sim-engines and the router via `llmgw <role>`).
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/router-overhead.ts          # full
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/router-overhead.ts --quick  # smoke
 *   options: --rates 200,1000  --seconds N  --warmup N  --streams N
 *   BENCH_ROUTER_ARGS='--log-level warn' passes extra flags to the measured router
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import { arg, openLoop, pct, quick, QUIET } from './lib/open-loop';

const RATES = (arg('rates') ?? (quick ? '200' : '200,500,1000')).split(',').map(Number);
const SECONDS = Number(arg('seconds') ?? (quick ? 2 : 10));
const WARMUP_SECONDS = Number(arg('warmup') ?? (quick ? 1 : 3));
const STREAMS = Number(arg('streams') ?? (quick ? 100 : 1000));
const STREAM_SECONDS = quick ? 3 : 20;
const CANCELS = quick ? 3 : 10;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function running(url: string): Promise<number> {
  const t = await (await fetch(`${url}/metrics`)).text();
  const m = /^vllm:num_requests_running(?:\{[^}]*\})? (\S+)/m.exec(t);
  return m ? Number(m[1]) : 0;
}

async function main(): Promise<void> {
  const engineArgs = ['--port', '0', '--model', 'sim', '--prefill-tps', '0', '--decode-tps', '0', '--max-num-seqs', '2000', '--log-level', 'info'];
  const procs: SpawnedRole[] = [];
  try {
    const direct = await spawnRole('sim-engine', engineArgs, QUIET);
    procs.push(direct);
    const behind = await Promise.all([0, 1, 2].map(() => spawnRole('sim-engine', engineArgs, QUIET)));
    procs.push(...behind);
    const router = await spawnRole(
      'router',
      [
        ...behind.flatMap((e, i) => ['--endpoint', `e${i}=${e.url}=sim`]),
        '--port',
        '0',
        '--admin-port',
        '0',
        ...(process.env.BENCH_ROUTER_ARGS ? process.env.BENCH_ROUTER_ARGS.split(' ') : []),
      ],
      QUIET,
    );
    procs.push(router);
    console.log(`router ${router.url} (pid ${router.pid}); direct engine ${direct.url}; 3 engines behind the router`);

    console.log(`\n1. added latency, short non-streaming completions (${SECONDS}s per rate after ${WARMUP_SECONDS}s warm-up)`);
    console.log('rate/s  direct p50  direct p99  router p50  router p99  added p50  added p99  errors(d/r)');
    for (const rate of RATES) {
      const d = await openLoop(direct.url, rate, SECONDS, WARMUP_SECONDS);
      const r = await openLoop(router.url, rate, SECONDS, WARMUP_SECONDS);
      const f = (x: number) => x.toFixed(2).padStart(10);
      console.log(
        `${String(rate).padStart(6)}  ${f(pct(d.lat, 50))}  ${f(pct(d.lat, 99))}  ${f(pct(r.lat, 50))}  ${f(pct(r.lat, 99))}  ${f(pct(r.lat, 50) - pct(d.lat, 50))} ${f(pct(r.lat, 99) - pct(d.lat, 99))}  ${d.errors}/${r.errors}`,
      );
    }

    console.log(`\n2. ${STREAMS} concurrent streams through the router for ~${STREAM_SECONDS}s`);
    const streamAgent = new Agent({ connections: STREAMS + 10 });
    const rssBefore = rssMb(router.pid);
    let errors = 0;
    let done = 0;
    let peakRss = rssBefore;
    // decode at 0 tps would finish at once: use a sim whose tokens come at a fixed pace.
    const slow = await Promise.all(
      [0, 1, 2].map(() =>
        spawnRole(
          'sim-engine',
          ['--port', '0', '--model', 'slow', '--decode-tps', '10', '--max-num-seqs', '2000', '--batch-contention', '0', '--log-level', 'info'],
          QUIET,
        ),
      ),
    );
    procs.push(...slow);
    const streamRouter = await spawnRole(
      'router',
      [...slow.flatMap((e, i) => ['--endpoint', `s${i}=${e.url}=slow`]), '--port', '0', '--admin-port', '0'],
      QUIET,
    );
    procs.push(streamRouter);
    const body = JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'go' }], max_tokens: STREAM_SECONDS * 10, stream: true });
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(streamRouter.pid))), 250);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: STREAMS }, async () => {
        try {
          const res = await request(`${streamRouter.url}/v1/chat/completions`, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json' },
            dispatcher: streamAgent,
          });
          const text = await res.body.text();
          if (res.statusCode !== 200 || !text.includes('[DONE]')) errors++;
          else done++;
        } catch {
          errors++;
        }
      }),
    );
    clearInterval(sampler);
    console.log(`streams ok ${done}, errors ${errors}, wall ${((performance.now() - t0) / 1000).toFixed(1)}s, router RSS peak ${peakRss.toFixed(0)} MB`);
    await streamAgent.close();

    console.log(`\n3. cancelled stream → engine slot freed (${CANCELS} runs)`);
    const freed: number[] = [];
    for (let i = 0; i < CANCELS; i++) {
      const ac = new AbortController();
      const res = await request(`${streamRouter.url}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'slow', messages: [{ role: 'user', content: 'x' }], max_tokens: 1000, stream: true }),
        headers: { 'content-type': 'application/json', 'x-llmgw-profile': 'debug' },
        signal: ac.signal,
      });
      const replica = String(res.headers['x-llmgw-replica']);
      const engine = slow[Number(replica.slice(1))];
      for await (const _ of res.body) break;
      const t = performance.now();
      ac.abort();
      while ((await running(engine.url)) > 0) await new Promise((r) => setTimeout(r, 2));
      freed.push(performance.now() - t);
    }
    console.log(`freed in p50 ${pct(freed, 50).toFixed(1)} ms, max ${Math.max(...freed).toFixed(1)} ms (target < 100 ms)`);
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
