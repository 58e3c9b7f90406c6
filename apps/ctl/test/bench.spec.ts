import { execFileSync } from 'node:child_process';
import { benchChartSvg, niceScale } from '../src/bench/chart';
import { benchPrompt, runRamp, runStep, type RampOptions } from '../src/bench/drive';
import { DEFAULT_SLO, maxConcurrencyAtSlo, nextConcurrency, parseSlo, percentile, summarizeStep, type Sample, type StepResult } from '../src/bench/stats';

const ok = (ttftMs: number, tpotMs: number, outputTokens = 10): Sample => ({ ok: true, ttftMs, tpotMs, outputTokens });

/** A replica that meets the SLO up to `capacity` requests in flight and breaks it above. */
function stepAt(concurrency: number, capacity: number): StepResult {
  const samples = Array.from({ length: 20 }, () => ok(concurrency <= capacity ? 100 : 5000, 20));
  return summarizeStep(concurrency, samples, 1000, [], DEFAULT_SLO);
}

describe('ctl bench arithmetic', () => {
  it('percentiles are nearest-rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(xs, 50), percentile(xs, 95), percentile(xs, 99), percentile(xs, 100)]).toEqual([50, 95, 99, 100]);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });

  it('parses the SLO, keeping the default for a part left out, and refuses nonsense', () => {
    expect(parseSlo('ttft_p99=500ms')).toEqual({ ttftP99Ms: 500, tpotP99Ms: 50 });
    expect(parseSlo('tpot_p99<=20ms, ttft_p99=1s')).toEqual({ ttftP99Ms: 1000, tpotP99Ms: 20 });
    expect(() => parseSlo('latency=5')).toThrow(/ttft_p99=<duration>/);
    expect(() => parseSlo('ttft_p99=fast')).toThrow(/not a duration/);
  });

  it('a step breaks the SLO on p99 TTFT, p99 TPOT or any failure, and says which', () => {
    const fine = summarizeStep(
      4,
      [ok(100, 10), ok(200, 20)],
      1000,
      [
        { waiting: 2, running: 4, kvUsage: 0.5 },
        { waiting: 5, running: 4, kvUsage: 0.25 },
      ],
      DEFAULT_SLO,
    );
    expect(fine).toMatchObject({ meetsSlo: true, requests: 2, failed: 0, tokensPerSec: 20, engineWaitingMax: 5, engineRunningMax: 4, kvUsageMax: 0.5 });
    expect(summarizeStep(4, [ok(100, 10), ok(2500, 20)], 1000, [], DEFAULT_SLO).breaks).toMatch(/TTFT p99 2500 ms > 2000 ms/);
    expect(summarizeStep(4, [ok(100, 60)], 1000, [], DEFAULT_SLO).breaks).toMatch(/TPOT p99 60 ms > 50 ms/);
    const failed = summarizeStep(4, [ok(100, 10), { ok: false, ttftMs: 0, tpotMs: 0, outputTokens: 0, error: 'HTTP 503' }], 1000, [], DEFAULT_SLO);
    expect(failed).toMatchObject({ meetsSlo: false, failed: 1 });
    expect(failed.breaks).toMatch(/1 of 2 requests failed \(HTTP 503\)/);
  });

  it.each([1, 3, 8, 13, 40, 100, 200])('the ramp doubles, then bisects, and lands within 10 %% of a capacity of %i', (capacity) => {
    const steps: StepResult[] = [];
    const o = { start: 1, max: 512, resolution: 0.1 };
    for (let c = nextConcurrency(steps, o); c !== undefined; c = nextConcurrency(steps, o)) {
      expect(steps.some((s) => s.concurrency === c)).toBe(false);
      steps.push(stepAt(c, capacity));
      expect(steps.length).toBeLessThan(30);
    }
    const found = maxConcurrencyAtSlo(steps);
    expect(found).toBeLessThanOrEqual(capacity);
    expect(found).toBeGreaterThanOrEqual(Math.floor(capacity * 0.9));
  });

  it('stops at --max-concurrency when nothing breaks, and reports 0 when even the first level breaks', () => {
    const o = { start: 1, max: 6, resolution: 0.1 };
    const steps: StepResult[] = [];
    for (let c = nextConcurrency(steps, o); c !== undefined; c = nextConcurrency(steps, o)) steps.push(stepAt(c, 1000));
    expect(steps.map((s) => s.concurrency)).toEqual([1, 2, 4, 6]);
    expect(maxConcurrencyAtSlo(steps)).toBe(6);
    expect(maxConcurrencyAtSlo([stepAt(1, 0)])).toBe(0);
    expect(nextConcurrency([stepAt(1, 0)], o)).toBeUndefined();
  });

  it('a level that met the SLO above one that broke it does not count (noise is not capacity)', () => {
    expect(maxConcurrencyAtSlo([stepAt(4, 10), stepAt(8, 5), stepAt(16, 100)])).toBe(4);
  });

  it('prompts share exactly their common prefix within a ramp and differ after it', () => {
    const a = benchPrompt(100, 0.5, 'ramp1', 0).split(' ');
    const b = benchPrompt(100, 0.5, 'ramp1', 1).split(' ');
    expect(a).toHaveLength(100);
    expect(a.slice(0, 50)).toEqual(b.slice(0, 50));
    expect(a.slice(50)).not.toEqual(b.slice(50));
    expect(benchPrompt(100, 0, 'ramp1', 0).split(' ').slice(0, 10)).not.toEqual(benchPrompt(100, 0, 'ramp1', 1).split(' ').slice(0, 10));
  });

  it('a step keeps exactly `concurrency` requests in flight until its quota is sent', async () => {
    let inFlight = 0;
    let peak = 0;
    const release: Array<() => void> = [];
    const send = () =>
      new Promise<Sample>((resolve) => {
        peak = Math.max(peak, ++inFlight);
        release.push(() => (inFlight--, resolve(ok(1, 1))));
      });
    const run = runStep(3, 7, send);
    while (release.length || inFlight) {
      await new Promise((r) => setImmediate(r));
      release.shift()?.();
    }
    const r = await run;
    expect(r.samples).toHaveLength(7);
    expect(peak).toBe(3);
  });

  describe('a level that breaks the SLO once runs again, and counts as broken only if it breaks again', () => {
    const ramp: RampOptions = {
      promptTokens: 8,
      outputTokens: 10,
      prefixShare: 0,
      minRequests: 8,
      requestsPerSlot: 2,
      startConcurrency: 2,
      maxConcurrency: 32,
      resolution: 0.1,
      slo: DEFAULT_SLO,
      requestTimeoutMs: 1000,
    };
    /** A replica with 4 slots (over them, a request waits 5 s for its first token); `stallRun` of its steps stall whole. */
    const replica = (stallRun: (concurrency: number, run: number) => boolean) => {
      let inFlight = 0;
      let concurrency = 0;
      const runs = new Map<number, number>();
      const send = async (): Promise<Sample> => {
        inFlight++;
        await new Promise((r) => setImmediate(r));
        const stalled = stallRun(concurrency, runs.get(concurrency) ?? 0);
        const s = ok(stalled || inFlight > 4 ? 5000 : 100, 20);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return s;
      };
      const onStart = (c: number) => {
        concurrency = c;
        runs.set(c, (runs.get(c) ?? -1) + 1);
      };
      return { send, onStart, runs };
    };
    const target = { routerUrl: 'http://127.0.0.1:1', model: 'm', replica: 'r' };

    it('a stall in the first run of a level with the capacity does not lower MaxConcurrencyAtSLO', async () => {
      const r = replica((c, run) => c === 4 && run === 0);
      const out = await runRamp(target, ramp, r);
      expect(out.maxConcurrencyAtSlo).toBe(4);
      const at4 = out.steps.find((s) => s.concurrency === 4)!;
      expect(at4).toMatchObject({ meetsSlo: true, firstRunBroke: expect.stringMatching(/TTFT p99/) });
      expect(r.runs.get(4)).toBe(1);
      // The levels over the capacity broke twice; each is listed once.
      expect(out.steps.filter((s) => !s.meetsSlo).every((s) => s.firstRunBroke !== undefined)).toBe(true);
      expect(new Set(out.steps.map((s) => s.concurrency)).size).toBe(out.steps.length);
    });

    it('--no-confirm-breaks takes the first break as final', async () => {
      const r = replica((c, run) => c === 4 && run === 0);
      const out = await runRamp(target, { ...ramp, confirmBreaks: false }, r);
      expect(out.maxConcurrencyAtSlo).toBe(3);
      expect(out.steps.every((s) => s.firstRunBroke === undefined)).toBe(true);
    });
  });
});

describe('ctl bench chart', () => {
  const steps = [1, 2, 4, 8, 12, 16].map((c) => summarizeStep(c, [ok(100 * c, 4 * c)], 1000, [], DEFAULT_SLO));
  const svg = benchChartSvg({ title: 'demo <sim> & co', steps, slo: DEFAULT_SLO, maxConcurrencyAtSlo: 12 });

  it('round axis scales', () => {
    expect(niceScale(1586)).toEqual([2000, 500]);
    expect(niceScale(26.7)).toEqual([30, 10]);
    expect(niceScale(0)).toEqual([1, 0.2]);
  });

  it('draws the three series with a point per step, hollow where the SLO broke, the SLO lines and the max marker; escapes text', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(3);
    expect(svg.match(/<circle /g)).toHaveLength(18);
    // TPOT 4·16 = 64 ms > 50 ms and TTFT 1600 ms: only the last step broke (TPOT), in each of the three panels.
    expect(svg.match(/fill="#ffffff" stroke=/g)).toHaveLength(3);
    expect(svg).toContain('TTFT p99 SLO');
    expect(svg).toContain('TPOT p99 SLO');
    expect(svg).toContain('max at SLO: 12');
    expect(svg).toContain('demo &lt;sim&gt; &amp; co');
    expect(svg).not.toContain('NaN');
  });

  it('is well-formed XML', () => {
    let xmllint = true;
    try {
      execFileSync('xmllint', ['--version'], { stdio: 'ignore' });
    } catch {
      xmllint = false;
    }
    if (xmllint) execFileSync('xmllint', ['--noout', '-'], { input: svg });
    // Without xmllint: every element opened is closed (the chart uses no nesting beyond <svg>).
    const opened = (svg.match(/<(?!\/)[a-z]+[^>]*[^/]>/g) ?? []).filter((t) => !t.startsWith('<svg')).length;
    expect(svg.match(/<\/(text|svg)>/g)!.length - 1).toBe(opened);
  });
});
