import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { createLogger } from '@llmgw/observability';
import { Scraper } from './scraper';
import { StaticEndpointSource } from './static-source';
import { waitUntil } from '@llmgw/contracts/wait';

const good = (running: number, waiting: number, finished: number) =>
  `vllm:num_requests_running{model_name="m"} ${running}\nvllm:num_requests_waiting{model_name="m"} ${waiting}\nvllm:kv_cache_usage_perc{model_name="m"} 0.25\nvllm:request_success_total{model_name="m",finished_reason="stop"} ${finished}\n`;

async function serve(handler: (res: http.ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const srv = http.createServer((_req, res) => handler(res));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, close: () => new Promise((r) => srv.close(() => r())) };
}

function logCapture() {
  const stream = new PassThrough();
  const lines: any[] = [];
  stream.on('data', (b: Buffer) =>
    b
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => lines.push(JSON.parse(l))),
  );
  return { log: createLogger({ service: 'test', destination: stream, level: 'warn' }), lines };
}

describe('Scraper', () => {
  it('reads stats, learns batch capacity and drain rate, marks stale on failure without forgetting', async () => {
    let body = good(3, 1, 100);
    let status = 200;
    const srv = await serve((res) => {
      res.statusCode = status;
      res.end(body);
    });
    const src = new StaticEndpointSource([{ name: 'e1', url: srv.url, model: 'm' }]);
    const seen: boolean[] = [];
    let clock = 1_000_000;
    const sc = new Scraper({ source: src, intervalMs: 60_000, onScrape: (_e, _s, ok) => seen.push(ok), now: () => clock });
    try {
      await sc.scrapeAll();
      expect(sc.state('e1')).toMatchObject({ stale: false, consecutiveFailures: 0, batchCapacity: 3, stats: { running: 3, waiting: 1, kvUsage: 0.25 } });
      clock += 100;
      body = good(1, 0, 110);
      await sc.scrapeAll();
      const st = sc.state('e1')!;
      expect(st.batchCapacity).toBe(3);
      expect(st.drainRate).toBeCloseTo(100); // 10 completions in 0.1 s
      status = 500;
      await sc.scrapeAll();
      await sc.scrapeAll();
      expect(sc.state('e1')).toMatchObject({ stale: true, consecutiveFailures: 2, unreachable: false, stats: { running: 1 } });
      expect(seen).toEqual([true, true, false, false]);
      status = 200;
      await sc.scrapeAll();
      expect(sc.state('e1')).toMatchObject({ stale: false, consecutiveFailures: 0 });
    } finally {
      await sc.close();
      await srv.close();
    }
  });

  it('a scrape that times out without an answer is unreachable; the next good one clears it', async () => {
    let answer = false;
    const srv = await serve((res) => {
      if (answer) res.end(good(0, 0, 1)); // else: never answered, only the timeout ends it
    });
    const src = new StaticEndpointSource([{ name: 'dark', url: srv.url, model: 'm' }]);
    // Long enough for the second scrape's answer to come back on a stalled event loop; only the first hangs.
    const sc = new Scraper({ source: src, intervalMs: 60_000, timeoutMs: 2_000 });
    try {
      await sc.scrapeAll();
      expect(sc.state('dark')).toMatchObject({ consecutiveFailures: 1, unreachable: true });
      answer = true;
      await sc.scrapeAll();
      expect(sc.state('dark')).toMatchObject({ consecutiveFailures: 0, unreachable: false });
    } finally {
      await sc.close();
      await srv.close();
    }
  });

  it('counts an unreachable endpoint as failed', async () => {
    const srv = await serve((res) => res.end(''));
    await srv.close();
    const src = new StaticEndpointSource([{ name: 'gone', url: srv.url, model: 'm' }]);
    const sc = new Scraper({ source: src, intervalMs: 60_000, timeoutMs: 500 });
    try {
      await sc.scrapeAll();
      expect(sc.state('gone')).toMatchObject({ stale: true, consecutiveFailures: 1, unreachable: true });
    } finally {
      await sc.close();
    }
  });

  it('logs a contract violation at warn once, and once when it clears', async () => {
    let body = 'vllm:num_requests_running 1\n';
    const srv = await serve((res) => res.end(body));
    const { log, lines } = logCapture();
    const src = new StaticEndpointSource([{ name: 'v', url: srv.url, model: 'm' }]);
    const sc = new Scraper({ source: src, intervalMs: 60_000, log });
    try {
      for (let i = 0; i < 3; i++) await sc.scrapeAll();
      body = good(0, 0, 0);
      for (let i = 0; i < 2; i++) await sc.scrapeAll();
      await new Promise((r) => setImmediate(r));
      expect(lines.map((l) => l.msg)).toEqual(['engine metric contract violation', 'engine metric contract violation cleared']);
      expect(lines[0]).toMatchObject({ level: 'warn', endpoint: 'v' });
    } finally {
      await sc.close();
      await srv.close();
    }
  });

  it('loops by itself and follows source changes', async () => {
    const srv = await serve((res) => res.end(good(0, 0, 0)));
    const src = new StaticEndpointSource([{ name: 'a', url: srv.url, model: 'm' }]);
    const sc = new Scraper({ source: src, intervalMs: 50 });
    try {
      // Nobody calls scrapeAll: only the loop can make the state fresh (a fixed pause was too short on a busy machine).
      await waitUntil(() => sc.state('a')?.stale === false, 'the loop to scrape a');
      src.set([{ name: 'b', url: srv.url, model: 'm' }]);
      expect(sc.state('a')).toBeUndefined();
      await waitUntil(() => sc.state('b')?.stale === false, 'the loop to scrape b');
    } finally {
      await sc.close();
      await srv.close();
    }
  });
});
