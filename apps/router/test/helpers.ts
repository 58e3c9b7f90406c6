import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { createLogger, type Logger } from '@llmgw/observability';

/** A logger that drops everything (keeps test output readable) unless LLMGW_TEST_LOGS is set. */
export function silentLog(): Logger {
  return createLogger({ service: 'router', level: process.env.LLMGW_TEST_LOGS ? 'debug' : 'silent' });
}

/** A logger whose JSON lines are collected in `lines`. */
export function capturingLog(level = 'info'): { log: Logger; lines: any[] } {
  const stream = new PassThrough();
  const lines: any[] = [];
  stream.on('data', (b: Buffer) =>
    b
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => lines.push(JSON.parse(l))),
  );
  return { log: createLogger({ service: 'router', destination: stream, level }), lines };
}

/** One sample of a metric from a Prometheus text page; labels must all match (extra labels allowed). */
export async function metricValue(adminUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([^{\s]+)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      total += Number(m[3]);
      found = true;
    }
  }
  return found ? total : 0;
}

export type FakeHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface FakeUpstream {
  url: string;
  /** Requests to inference paths, in order. */
  hits: Array<{ path: string; body: any; raw: string; headers: http.IncomingHttpHeaders }>;
  handler: FakeHandler;
  /** /metrics answer (status 200 with this text, or a status number to fail). */
  metrics: string | number;
  close(): Promise<void>;
}

export const METRICS_OK = 'vllm:num_requests_running 0\nvllm:num_requests_waiting 0\nvllm:kv_cache_usage_perc 0.1\n';

export function chatJson(text = 'ok', usage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }) {
  return JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage,
  });
}

export const ok: FakeHandler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(chatJson());
};

/** A small engine stand-in on port 0 whose behaviour a test sets per request. */
export async function fakeUpstream(handler: FakeHandler = ok): Promise<FakeUpstream> {
  const f: FakeUpstream = { url: '', hits: [], handler, metrics: METRICS_OK, close: async () => undefined };
  const srv = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString();
      if (req.url === '/metrics') {
        if (typeof f.metrics === 'number') {
          res.statusCode = f.metrics;
          res.end('down');
        } else res.end(f.metrics);
        return;
      }
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      f.hits.push({ path: req.url ?? '', body, raw: text, headers: req.headers });
      f.handler(req, res, text);
    });
  });
  // The router's own accept backlog: a test that opens a thousand connections at once (upstream-pool.spec)
  // on a busy machine overflows Node's default of 511, and SYNs dropped past the connect timeout become 502s.
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', 4096, r));
  f.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  f.close = () =>
    new Promise((r) => {
      srv.closeAllConnections();
      srv.close(() => r());
    });
  return f;
}
