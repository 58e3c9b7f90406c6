/**
 * The phase 1.5 exit criterion as a runnable experiment (docs/performance.md): real
 * sim-engine processes, the admission service and a router (all spawned as
 * processes via bin/llmgw.cjs), a bronze flood saturating the engines, and
 * platinum requests whose TTFT is measured idle and under the flood — once
 * with admission on (router → remote admission service) and once with it off.
 * Used by apps/admission/test/priority-isolation.spec.ts (CI size) and
 * tools/bench/priority-isolation.ts (full size).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { spawnRole, type SpawnedRole } from '@llmgw/testing';

/** A refused flood client pauses this long before its next request, as a real client backs off. */
const BACKOFF_MS = 50;
const backOff = () => new Promise((r) => setTimeout(r, BACKOFF_MS));
/** The sampler reads engine and admission metrics this often. */
const SAMPLE_EVERY_MS = 200;
/** Scrape intervals the idle fleet is left alone before its baseline is measured. */
const IDLE_SCRAPES = 3;

export interface IsolationOptions {
  engines: number;
  /** Sim settings: small batch, slow enough decode that a flood saturates it. */
  maxNumSeqs: number;
  decodeTps: number;
  prefillTps: number;
  /** Concurrent bronze requests kept in flight by the flood. */
  bronzeConcurrency: number;
  /** Bronze max_tokens is drawn uniformly from this range (desynchronises completions). */
  bronzeTokens: [number, number];
  /** Platinum samples per phase, sent one after another. */
  platinumSamples: number;
  /** Gap between platinum arrivals, ms. */
  platinumGapMs: number;
  /** Prompt size of platinum requests, characters (~4 per token): sets the idle TTFT. */
  platinumPromptChars: number;
  /** Flood warm-up before measuring (batch capacity learning, queues filling), ms. */
  warmupMs: number;
  scrapeIntervalMs: number;
  /**
   * The router's replica choice: `round-robin` (the `debug` profile) or
   * `least-inflight` (max-score on the inflight scorer: a platinum request goes
   * to the replica with a free slot).
   */
  replicaChoice?: 'round-robin' | 'least-inflight' | 'default';
  /** Router credits with admission on (default true); false = every request an Acquire. */
  credits?: boolean;
  /**
   * Whether the endpoints declare the engines' `max_num_seqs` (default false: admission
   * learns the slots from the engines' metrics, as for an operator who wrote none).
   */
  declareSlots?: boolean;
  log?: (line: string) => void;
}

export interface PhaseResult {
  idleP50: number;
  idleP90: number;
  idleP99: number;
  loadedP50: number;
  loadedP90: number;
  loadedP99: number;
  /** loadedP99 / idleP99. */
  ratio: number;
  /** loadedP90 / idleP90. */
  ratio90: number;
  bronzeCompleted: number;
  /** Bronze requests completed while platinum was being measured (no starvation when > 0). */
  bronzeCompletedWhileMeasured: number;
  bronzeRejected: number;
  /** Times the router fell back to in-process admission (should be 0). */
  fallbacks: number;
  /** Highest running-batch occupancy summed over the engines while platinum was measured, 0..1. */
  peakOccupancy: number;
  /** Highest engine queue (waiting, summed) while platinum was measured. */
  peakEngineWaiting: number;
  /** Highest bronze queue depth in the admission service while platinum was measured (0 when off). */
  peakBronzeQueued: number;
  /** p90 of the platinum requests' wait in admission under load (the router's x-llmgw-queue-ms), ms. */
  loadedQueueP90: number;
  /** p50 of the bronze requests' wait in admission while platinum was measured (x-llmgw-queue-ms), ms. */
  bronzeQueueP50: number;
  /** llmgw_admission_learned_slots by endpoint at the end of the phase (admission on; empty when declared). */
  learnedSlots: Record<string, number>;
  /**
   * The engines' own view of the loaded platinum requests (GET /sim/requests, by x-request-id):
   * how many reached an engine, and how many of those found no free batch slot and waited for a
   * running request to finish. Counts of events, not durations: they do not depend on how busy the
   * machine is.
   */
  platinumAtEngine: number;
  platinumWaitedForSlot: number;
  /** p90 of the requests ahead of a loaded platinum request in its engine's waiting queue. */
  platinumAheadP90: number;
  /** Platinum TTFT p90 on the engines' clocks (arrival at the engine to first token), idle and loaded, ms. */
  engineIdleP90: number;
  engineLoadedP90: number;
  /** Platinum TTFT p90 as the router logged it (its handler's start to the first chunk), idle and loaded, ms. */
  routerIdleP90: number;
  routerLoadedP90: number;
}

/** One request as the sim-engine logged it (GET /sim/requests). */
interface EngineRequest {
  request_id: string;
  slot_free_on_arrival: boolean;
  ahead_on_arrival: number;
  queued_ms: number;
  ttft_ms: number;
}

/**
 * Slot-limited engines (issue 13): two sim-engines with 8 batch slots each,
 * a closed-loop flood of 20 × their 16 slots in bronze, and short platinum
 * prompts (about 50 tokens, idle TTFT some tens of ms) that show any wait for a
 * slot. The router picks the least-loaded replica.
 */
export const SLOT_OPTIONS: IsolationOptions = {
  engines: 2,
  maxNumSeqs: 8,
  decodeTps: 50,
  prefillTps: 1000,
  bronzeConcurrency: 320,
  bronzeTokens: [16, 48],
  platinumSamples: 30,
  platinumGapMs: 150,
  platinumPromptChars: 200,
  warmupMs: 4000,
  scrapeIntervalMs: 200,
  replicaChoice: 'least-inflight',
};

/**
 * The slot-limited shape on endpoints that declare no `max_num_seqs`: three
 * sim-engines with 6 slots each (18), a bronze flood of 20 × the slots, the
 * same short platinum prompts. Admission learns each engine's slots from its
 * metrics (docs/admission.md, "Learned slots").
 */
export const LEARNED_SLOT_OPTIONS: IsolationOptions = {
  ...SLOT_OPTIONS,
  engines: 3,
  maxNumSeqs: 6,
  bronzeConcurrency: 360,
  declareSlots: false,
};

export const CI_OPTIONS: IsolationOptions = {
  engines: 2,
  maxNumSeqs: 32,
  decodeTps: 50,
  prefillTps: 1000,
  bronzeConcurrency: 240,
  bronzeTokens: [16, 48],
  platinumSamples: 16,
  platinumGapMs: 150,
  platinumPromptChars: 2000,
  warmupMs: 3000,
  scrapeIntervalMs: 200,
  // Declared, as docs/configuration.md recommends: this shape is about the bands, and learning
  // undeclared slots has its own suite (learned-slot-isolation.spec.ts).
  declareSlots: true,
  // Once admission knows the engines' real slots (learned or declared) it keeps them full; a granted
  // platinum request must then go to the engine with a free slot, not the next in turn, or it waits
  // inside an FCFS engine behind bronze (round robin measured 1.14-1.63x here, run to run).
  replicaChoice: 'least-inflight',
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

const words = (chars: number, seed: number) => {
  let s = '';
  let i = seed;
  while (s.length < chars) s += `w${(i = (i * 7919 + 13) % 100_003)} `;
  return s.slice(0, chars);
};

/** Starts the engines once; phases start their own admission service and router. */
export class IsolationRig {
  engines: SpawnedRole[] = [];
  private dir = mkdtempSync(join(tmpdir(), 'llmgw-iso-'));
  private agent = new Agent({ connections: 2048, pipelining: 0 });
  /** x-llmgw-queue-ms of every platinum response, in order. */
  private queueMs: number[] = [];

  constructor(readonly o: IsolationOptions) {}

  async startEngines(): Promise<void> {
    const { o } = this;
    this.engines = await Promise.all(
      Array.from({ length: o.engines }, (_x, i) =>
        spawnRole('sim-engine', [
          '--port',
          '0',
          '--model',
          'iso',
          '--max-num-seqs',
          String(o.maxNumSeqs),
          '--decode-tps',
          String(o.decodeTps),
          '--prefill-tps',
          String(o.prefillTps),
          '--batch-contention',
          '0',
          '--prefix-cache-blocks',
          '0',
          '--num-gpu-blocks',
          '100000',
          '--seed',
          String(i + 1),
        ]),
      ),
    );
  }

  private endpoints() {
    return this.engines.map((e, i) => ({
      name: `e${i}`,
      url: e.url,
      model: 'iso',
      pool: 'p',
      ...(this.o.declareSlots ? { max_num_seqs: this.o.maxNumSeqs } : {}),
    }));
  }

  /** Starts admission (when on) and a router; returns the router URL and a stop function. */
  async startStack(
    admission: boolean,
  ): Promise<{ url: string; routerAdmin: string; admissionAdmin?: string; fallbacks: () => number; routerOutput: () => string[]; stop: () => Promise<void> }> {
    const stops: Array<() => Promise<unknown>> = [];
    let adm: SpawnedRole | undefined;
    const scrape = `${this.o.scrapeIntervalMs}ms`;
    if (admission) {
      const f = join(this.dir, 'admission.yaml');
      writeFileSync(
        f,
        JSON.stringify({ listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', scrape_interval: scrape, log_level: 'info', endpoints: this.endpoints() }),
      );
      adm = await spawnRole('admission', ['--config', f]);
      stops.push(() => adm!.stop());
    }
    const rf = join(this.dir, `router-${admission ? 'on' : 'off'}.yaml`);
    const grpc = adm ? new URL(adm.urls.grpc).host : undefined;
    writeFileSync(
      rf,
      JSON.stringify({
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        log_level: 'info',
        scrape_interval: scrape,
        retries: 0,
        // Round-robin replica choice over identical engines keeps this test about admission alone.
        // (Score-based profiles pass too since the router schedules each granted request on fresh
        // inflight counts — apps/router/test/granted-burst.spec.ts — but their spread varies more.)
        // With few slots per engine a request must go where a slot is free: least inflight.
        ...(this.o.replicaChoice === 'default' ? {} : { default_profile: this.o.replicaChoice === 'least-inflight' ? 'least-inflight' : 'debug' }),
        profiles: { 'least-inflight': { scorers: { inflight: 1 }, picker: { type: 'max-score' } } },
        endpoints: this.endpoints(),
        admission: admission
          ? { mode: 'remote', address: grpc, queue_ttl: '60s', ...(this.o.credits === false ? { credit_interval: '0s' } : {}) }
          : { mode: 'off' },
      }),
    );
    const router = await spawnRole('router', ['--config', rf]);
    stops.push(() => router.stop());
    return {
      url: router.url,
      routerAdmin: router.urls.admin,
      admissionAdmin: adm?.urls.admin,
      fallbacks: () => router.output().filter((l) => l.includes('using in-process admission')).length,
      routerOutput: () => router.output(),
      stop: async () => void (await Promise.all(stops.map((s) => s()))),
    };
  }

  /** One streamed platinum request; returns ms to the first content token. `id` is its x-request-id. */
  async platinumTtft(url: string, seed: number, id?: string): Promise<number> {
    const t0 = performance.now();
    const res = await request(`${url}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: this.agent,
      headers: { 'content-type': 'application/json', 'x-llmgw-band': 'platinum', 'x-llmgw-tenant': 'interactive', ...(id ? { 'x-request-id': id } : {}) },
      body: JSON.stringify({ model: 'iso', stream: true, max_tokens: 2, messages: [{ role: 'user', content: words(this.o.platinumPromptChars, seed) }] }),
    });
    if (res.statusCode !== 200) throw new Error(`platinum got HTTP ${res.statusCode}: ${await res.body.text()}`);
    this.queueMs.push(Number(res.headers['x-llmgw-queue-ms'] ?? 0));
    let ttft: number | undefined;
    let buf = '';
    for await (const chunk of res.body) {
      if (ttft !== undefined) continue;
      buf += chunk.toString();
      if (/"content":"[^"]/.test(buf)) ttft = performance.now() - t0;
    }
    if (ttft === undefined) throw new Error('platinum stream had no content');
    return ttft;
  }

  /** Platinum arrivals every `platinumGapMs` (open loop, like interactive users); their TTFTs. Ids are `<tag>-<i>`. */
  async platinumSeries(url: string, tag: string): Promise<number[]> {
    const all: Array<Promise<number>> = [];
    for (let i = 0; i < this.o.platinumSamples; i++) {
      all.push(this.platinumTtft(url, i * 31 + 7, `${tag}-${i}`));
      await new Promise((r) => setTimeout(r, this.o.platinumGapMs));
    }
    return Promise.all(all);
  }

  /** Keeps `bronzeConcurrency` non-streamed bronze requests in flight until stopped. */
  flood(url: string): { completed: () => number; queueMs: number[]; stop: () => Promise<{ completed: number; rejected: number }> } {
    let running = true;
    let completed = 0;
    /** x-llmgw-queue-ms of every bronze answer, in order. */
    const queueMs: number[] = [];
    // Stopping cancels what is still queued or running, so a phase does not wait for the backlog to drain.
    const cancel = new AbortController();
    let rejected = 0;
    let seq = 0;
    const [lo, hi] = this.o.bronzeTokens;
    const worker = async () => {
      while (running) {
        const n = seq++;
        try {
          const res = await request(`${url}/v1/chat/completions`, {
            method: 'POST',
            dispatcher: this.agent,
            signal: cancel.signal,
            headers: { 'content-type': 'application/json', 'x-llmgw-band': 'bronze', 'x-llmgw-tenant': `batch-${n % 3}` },
            body: JSON.stringify({ model: 'iso', max_tokens: lo + (n % (hi - lo + 1)), messages: [{ role: 'user', content: words(200, n) }] }),
          });
          await res.body.dump();
          if (res.statusCode === 200) {
            completed++;
            queueMs.push(Number(res.headers['x-llmgw-queue-ms'] ?? 0));
          } else {
            rejected++;
            await backOff();
          }
        } catch {
          if (!running) return;
          rejected++;
          await backOff();
        }
      }
    };
    const workers = Array.from({ length: this.o.bronzeConcurrency }, worker);
    return {
      completed: () => completed,
      queueMs,
      stop: async () => {
        running = false;
        const done = { completed, rejected };
        cancel.abort();
        await Promise.all(workers);
        return done;
      },
    };
  }

  /** Polls engine and admission metrics every 200 ms until stopped; returns the peaks. */
  sample(admissionAdmin?: string): { stop: () => Promise<{ peakOccupancy: number; peakEngineWaiting: number; peakBronzeQueued: number }> } {
    const peaks = { peakOccupancy: 0, peakEngineWaiting: 0, peakBronzeQueued: 0 };
    const num = (text: string, re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
    let running = true;
    const loop = (async () => {
      while (running) {
        const texts = await Promise.all(
          this.engines.map((e) =>
            request(`${e.url}/metrics`, { dispatcher: this.agent })
              .then((r) => r.body.text())
              .catch(() => ''),
          ),
        );
        const run = texts.reduce((n, t) => n + num(t, /^vllm:num_requests_running\{[^}]*\} (\S+)/m), 0);
        const wait = texts.reduce((n, t) => n + num(t, /^vllm:num_requests_waiting\{[^}]*\} (\S+)/m), 0);
        peaks.peakOccupancy = Math.max(peaks.peakOccupancy, run / (this.o.maxNumSeqs * this.engines.length));
        peaks.peakEngineWaiting = Math.max(peaks.peakEngineWaiting, wait);
        if (admissionAdmin) {
          const t = await request(`${admissionAdmin}/metrics`, { dispatcher: this.agent })
            .then((r) => r.body.text())
            .catch(() => '');
          peaks.peakBronzeQueued = Math.max(peaks.peakBronzeQueued, num(t, /^llmgw_admission_queue_depth\{[^}]*band="bronze"[^}]*\} (\S+)/m));
        }
        await new Promise((r) => setTimeout(r, SAMPLE_EVERY_MS));
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
        return peaks;
      },
    };
  }

  /** Every engine's log of the requests whose x-request-id starts with `tag-`. */
  async engineView(tag: string): Promise<EngineRequest[]> {
    const logs = await Promise.all(
      this.engines.map((e) =>
        request(`${e.url}/sim/requests?prefix=${encodeURIComponent(`${tag}-`)}`, { dispatcher: this.agent }).then(
          (r) => r.body.json() as Promise<{ requests: EngineRequest[] }>,
        ),
      ),
    );
    return logs.flatMap((l) => l.requests);
  }

  /** Idle platinum series, then the same under the bronze flood. */
  async phase(admission: boolean): Promise<PhaseResult> {
    const stack = await this.startStack(admission);
    try {
      // Warm the path (connections, JIT) before measuring idle.
      await this.platinumTtft(stack.url, 1);
      await this.platinumTtft(stack.url, 2);
      await new Promise((r) => setTimeout(r, this.o.scrapeIntervalMs * IDLE_SCRAPES));
      const tag = `plat-${admission ? 'on' : 'off'}-${Date.now().toString(36)}`;
      const idle = await this.platinumSeries(stack.url, `${tag}-idle`);
      const f = this.flood(stack.url);
      await new Promise((r) => setTimeout(r, this.o.warmupMs));
      const peaks = this.sample(stack.admissionAdmin);
      const bronzeBefore = f.completed();
      const bronzeQueueBefore = f.queueMs.length;
      this.queueMs = [];
      const loaded = await this.platinumSeries(stack.url, `${tag}-load`);
      const loadedQueue = this.queueMs;
      const bronzeWhile = f.completed() - bronzeBefore;
      const bronzeQueue = f.queueMs.slice(bronzeQueueBefore);
      const p = await peaks.stop();
      const learnedSlots: Record<string, number> = {};
      if (stack.admissionAdmin) {
        const t = await request(`${stack.admissionAdmin}/metrics`, { dispatcher: this.agent }).then((r) => r.body.text());
        for (const m of t.matchAll(/^llmgw_admission_learned_slots\{[^}]*endpoint="([^"]+)"[^}]*\} (\S+)/gm)) learnedSlots[m[1]] = Number(m[2]);
      }
      const b = await f.stop();
      const engineIdle = await this.engineView(`${tag}-idle`);
      const engineLoaded = await this.engineView(`${tag}-load`);
      const routerTtft = (prefix: string): number[] => {
        const out: number[] = [];
        for (const line of stack.routerOutput()) {
          if (!line.includes(prefix)) continue;
          try {
            const j = JSON.parse(line) as { reqId?: string; ttftMs?: number };
            if (j.reqId?.startsWith(prefix) && typeof j.ttftMs === 'number') out.push(j.ttftMs);
          } catch {
            // not a JSON log line
          }
        }
        return out;
      };
      const routerIdle = routerTtft(`${tag}-idle-`);
      const routerLoaded = routerTtft(`${tag}-load-`);
      const r: PhaseResult = {
        idleP50: pct(idle, 50),
        idleP90: pct(idle, 90),
        idleP99: pct(idle, 99),
        loadedP50: pct(loaded, 50),
        loadedP90: pct(loaded, 90),
        loadedP99: pct(loaded, 99),
        ratio: pct(loaded, 99) / pct(idle, 99),
        ratio90: pct(loaded, 90) / pct(idle, 90),
        loadedQueueP90: pct(loadedQueue, 90),
        bronzeQueueP50: bronzeQueue.length ? pct(bronzeQueue, 50) : 0,
        bronzeCompleted: b.completed,
        bronzeCompletedWhileMeasured: bronzeWhile,
        bronzeRejected: b.rejected,
        fallbacks: stack.fallbacks(),
        ...p,
        learnedSlots,
        platinumAtEngine: engineLoaded.length,
        platinumWaitedForSlot: engineLoaded.filter((e) => !e.slot_free_on_arrival).length,
        platinumAheadP90: engineLoaded.length
          ? pct(
              engineLoaded.map((e) => e.ahead_on_arrival),
              90,
            )
          : 0,
        engineIdleP90: engineIdle.length
          ? pct(
              engineIdle.map((e) => e.ttft_ms),
              90,
            )
          : 0,
        engineLoadedP90: engineLoaded.length
          ? pct(
              engineLoaded.map((e) => e.ttft_ms),
              90,
            )
          : 0,
        routerIdleP90: routerIdle.length ? pct(routerIdle, 90) : 0,
        routerLoadedP90: routerLoaded.length ? pct(routerLoaded, 90) : 0,
      };
      this.o.log?.(
        `admission ${admission ? 'on ' : 'off'}: idle p50 ${r.idleP50.toFixed(0)} ms p90 ${r.idleP90.toFixed(0)} ms p99 ${r.idleP99.toFixed(0)} ms; loaded p50 ${r.loadedP50.toFixed(0)} ms p90 ${r.loadedP90.toFixed(0)} ms p99 ${r.loadedP99.toFixed(0)} ms; ratio p90 ${r.ratio90.toFixed(2)} p99 ${r.ratio.toFixed(2)}; in the router: platinum TTFT p90 idle ${r.routerIdleP90.toFixed(0)} ms, loaded ${r.routerLoadedP90.toFixed(0)} ms; at the engines: platinum TTFT p90 idle ${r.engineIdleP90.toFixed(0)} ms, loaded ${r.engineLoadedP90.toFixed(0)} ms, ${r.platinumWaitedForSlot} of ${r.platinumAtEngine} waited for a slot (ahead p90 ${r.platinumAheadP90}); platinum admission wait p90 ${r.loadedQueueP90} ms (bronze p50 ${r.bronzeQueueP50} ms); bronze ok ${r.bronzeCompleted} (${r.bronzeCompletedWhileMeasured} while measured) rejected ${r.bronzeRejected}; router fallbacks ${r.fallbacks}; peak occupancy ${(r.peakOccupancy * 100).toFixed(0)}%, engine waiting ${r.peakEngineWaiting}, bronze queued at admission ${r.peakBronzeQueued}${Object.keys(learnedSlots).length ? `; learned slots ${JSON.stringify(learnedSlots)}` : ''}`,
      );
      return r;
    } finally {
      await stack.stop();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.stop()));
    await this.agent.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
