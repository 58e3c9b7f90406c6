import { type ClientTlsOptions } from '@llmgw/grpc';
import { spawn } from 'node:child_process';
import { type FuzzMethod, loadFuzzMethods } from './grpc-fuzz-descriptors';
import { type CaseOptions, type FuzzCategory, echoes, fuzzCases, isDeserializeError, leakOf, sampleCases } from './grpc-fuzz-cases';
import { callRaw } from './grpc-fuzz-call';

// ---------------------------------------------------------------- a run

/** One gRPC port to fuzz. */
export interface FuzzTarget {
  /** Row name in the findings ("accounting", "inventory (agent port)"). */
  name: string;
  /** "host:port" */
  address: string;
  /** The services served there (full names); their methods come from the protos. */
  services: string[];
  /** Client TLS for a role (for "node": a node certificate whose CN the base message names). */
  tls(role: string): ClientTlsOptions;
  /**
   * The role tried first for each method (default operator); a refusal that
   * names the role the method needs switches to that one.
   */
  defaultRole?: string;
  /** Base field values per method name (see CaseOptions.base). */
  base?: Record<string, Record<string, string | number | boolean>>;
  /** Is the serving process still running? */
  alive?(): boolean;
  /** The admin /metrics URL, for nodejs_eventloop_lag_max_seconds. */
  metricsUrl?: string;
  /** A valid call that must succeed after the fuzzing; resolves to its status name. */
  valid?(): Promise<string>;
}

export interface CaseResult {
  id: string;
  category: FuzzCategory;
  code: string;
  /** The status message, cut to 300 characters. */
  message: string;
  messageLength: number;
  latencyMs: number;
  hang: boolean;
  echo: boolean;
  leak?: 'stack' | 'sql' | 'path';
  /** INTERNAL or UNKNOWN from the handler (not grpc-js failing to decode). */
  handlerError: boolean;
  deserializeError: boolean;
}

export interface MethodFindings {
  target: string;
  path: string;
  method: string;
  role: string;
  cases: number;
  codes: Record<string, number>;
  handlerErrors: number;
  deserializeErrors: number;
  hangs: number;
  echoes: number;
  leaks: number;
  maxLatencyMs: number;
  /** Largest event-loop delay the server reported while this method was fuzzed (ms), when it exports one. */
  stallMs?: number;
  /** The server process was running after this method's cases. */
  alive: boolean;
  results: CaseResult[];
}

export interface ScenarioFinding {
  target: string;
  name: string;
  ok: boolean;
  detail: string;
  stallMs?: number;
  /** Round trip of a health call sent right after (ms). */
  healthMs?: number;
  alive: boolean;
}

export interface TargetFindings {
  target: string;
  methods: MethodFindings[];
  scenarios: ScenarioFinding[];
  /** Status of the valid call after the fuzzing ("OK" when it succeeded). */
  validAfter?: string;
  alive: boolean;
}

export interface FuzzOptions extends Omit<CaseOptions, 'base'> {
  /** At most this many cases per method (a seeded sample keeping every category); all when absent. */
  samplePerMethod?: number;
  hangMs?: number;
  /** Calls in flight at once per method; default 4. */
  concurrency?: number;
  /**
   * Methods fuzzed at once; default 1. Above 1 a method's stall is the largest
   * event-loop delay since the previous scrape by any method.
   */
  methodConcurrency?: number;
  /** Only methods whose path matches. */
  methodFilter?: (path: string) => boolean;
  /** Progress lines (the runner prints them). */
  onProgress?: (line: string) => void;
  /** Where the protos are; default the repo's proto/. */
  protoRoot?: string;
}

const cut = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…(${s.length})` : s);

/** Per metrics URL: the largest delay any scrape through eventLoopMaxMs read since takeEventLoopMaxMs last cleared it. */
const seenLagMs = new Map<string, number>();

/** The largest event-loop delay since the last scrape, in ms (prom-client resets it per scrape). */
export async function eventLoopMaxMs(metricsUrl: string): Promise<number | undefined> {
  try {
    const r = await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) });
    const text = await r.text();
    const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.eE+-]+)/m.exec(text);
    if (!m) return undefined;
    const ms = Number(m[1]) * 1000;
    seenLagMs.set(metricsUrl, Math.max(ms, seenLagMs.get(metricsUrl) ?? 0));
    return ms;
  } catch {
    return undefined;
  }
}

/**
 * The largest event-loop delay read at `metricsUrl` by every eventLoopMaxMs
 * scrape since the previous take (each scrape resets the server's maximum, so
 * this is the maximum over the whole span however many scrapes cut it), and
 * clears it. Scrape once before taking, so the span ends now.
 */
export function takeEventLoopMaxMs(metricsUrl: string): number | undefined {
  const v = seenLagMs.get(metricsUrl);
  seenLagMs.delete(metricsUrl);
  return v;
}

/**
 * A bystander Node process that does nothing but measure its own event-loop
 * delay (as prom-client does for nodejs_eventloop_lag_max_seconds: a 10 ms
 * timer histogram). Whatever it sees comes from the machine (CPU contention,
 * other processes), not from any input, so it is the same-window reference
 * for what a fuzzed server reports.
 */
export interface LagProbe {
  /** The largest delay since the previous take (or the start), in ms; resets it. */
  takeMaxMs(): Promise<number>;
  stop(): void;
}

const LAG_PROBE_SCRIPT = [
  "const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 });",
  'h.enable();',
  "process.stdin.setEncoding('utf8');",
  "process.stdin.on('data', () => { process.stdout.write(`${(h.max / 1e6).toFixed(1)}\\n`); h.reset(); });",
  "process.stdin.on('end', () => process.exit(0));",
  "process.stdout.write('ready\\n');",
].join('\n');

export async function startLagProbe(): Promise<LagProbe> {
  const child = spawn(process.execPath, ['-e', LAG_PROBE_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      const l = lines.shift();
      if (l !== undefined) return resolve(l);
      const t = setTimeout(() => reject(new Error('lag probe: no answer in 10 s')), 10_000);
      waiters.push((line) => {
        clearTimeout(t);
        resolve(line);
      });
    });
  await next();
  return {
    takeMaxMs: async () => {
      child.stdin.write('\n');
      return Number(await next());
    },
    stop: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

/** The role a method needs, read from the refusal an authorized-by-role server sends (docs/security.md). */
async function roleFor(t: FuzzTarget, m: FuzzMethod, hangMs: number): Promise<string> {
  const first = t.defaultRole ?? 'operator';
  // An empty request on a stream may legitimately wait for more; the refusal, when there is one, comes at once.
  const a = await callRaw(t.address, t.tls(first), m, [Buffer.alloc(0)], { hangMs });
  const need = a.code === 'PERMISSION_DENIED' ? /needs role ([\w-]+)/.exec(a.message) : null;
  return need ? need[1] : first;
}

async function pool<T>(items: T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (i < items.length) await f(items[i++]);
    }),
  );
}

/** Fuzzes every method of `t`'s services; then checks the process and a valid call. */
export async function fuzzTarget(t: FuzzTarget, opts: FuzzOptions = {}): Promise<TargetFindings> {
  const hangMs = opts.hangMs ?? 5_000;
  const methods = loadFuzzMethods(opts.protoRoot, (s) => t.services.includes(s)).filter((m) => !opts.methodFilter || opts.methodFilter(m.path));
  const out: MethodFindings[] = [];
  await pool(methods, opts.methodConcurrency ?? 1, async (m) => {
    const role = await roleFor(t, m, hangMs);
    let cases = fuzzCases(m, { ...opts, base: t.base?.[m.method] });
    if (opts.samplePerMethod) cases = sampleCases(cases, opts.samplePerMethod, opts.seed ?? 29);
    if (t.metricsUrl) await eventLoopMaxMs(t.metricsUrl);
    const tls = t.tls(role);
    const results: CaseResult[] = [];
    await pool(cases, opts.concurrency ?? 4, async (c) => {
      const a = await callRaw(t.address, tls, m, c.frames, { hangMs });
      const deserializeError = isDeserializeError(a.message);
      const leak = leakOf(a.message);
      results.push({
        id: c.id,
        category: c.category,
        code: a.code,
        message: cut(a.message),
        messageLength: a.message.length,
        latencyMs: Math.round(a.latencyMs),
        hang: a.code === 'HANG',
        echo: echoes(a.message, c.probes),
        ...(leak ? { leak } : {}),
        handlerError: (a.code === 'INTERNAL' || a.code === 'UNKNOWN') && !deserializeError,
        deserializeError,
      });
    });
    const stallMs = t.metricsUrl ? await eventLoopMaxMs(t.metricsUrl) : undefined;
    const codes: Record<string, number> = {};
    for (const r of results) codes[r.code] = (codes[r.code] ?? 0) + 1;
    const f: MethodFindings = {
      target: t.name,
      path: m.path,
      method: `${m.service.split('.').pop()}/${m.method}`,
      role,
      cases: results.length,
      codes,
      handlerErrors: results.filter((r) => r.handlerError).length,
      deserializeErrors: results.filter((r) => r.deserializeError).length,
      hangs: results.filter((r) => r.hang).length,
      echoes: results.filter((r) => r.echo).length,
      leaks: results.filter((r) => r.leak).length,
      maxLatencyMs: Math.max(0, ...results.map((r) => r.latencyMs)),
      ...(stallMs !== undefined ? { stallMs: Math.round(stallMs) } : {}),
      alive: t.alive ? t.alive() : true,
      results: results.sort((a, b) => a.id.localeCompare(b.id)),
    };
    out.push(f);
    opts.onProgress?.(
      `${t.name} ${f.method}: ${f.cases} cases, ${f.handlerErrors} INTERNAL/UNKNOWN, ${f.hangs} hangs, ${f.echoes} echoes, ${f.leaks} leaks${f.alive ? '' : ', PROCESS GONE'}`,
    );
  });
  out.sort((a, b) => a.path.localeCompare(b.path));
  const validAfter = t.valid ? await t.valid().catch((e: Error) => `ERROR ${e.message}`) : undefined;
  return { target: t.name, methods: out, scenarios: [], ...(validAfter !== undefined ? { validAfter } : {}), alive: t.alive ? t.alive() : true };
}

// ---------------------------------------------------------------- reporting

export interface FuzzTotals {
  cases: number;
  handlerErrors: number;
  deserializeErrors: number;
  hangs: number;
  echoes: number;
  leaks: number;
  crashed: string[];
  failedValid: string[];
}

export function fuzzTotals(all: TargetFindings[]): FuzzTotals {
  const ms = all.flatMap((t) => t.methods);
  const sum = (k: 'cases' | 'handlerErrors' | 'deserializeErrors' | 'hangs' | 'echoes' | 'leaks') => ms.reduce((a, m) => a + m[k], 0);
  return {
    cases: sum('cases'),
    handlerErrors: sum('handlerErrors'),
    deserializeErrors: sum('deserializeErrors'),
    hangs: sum('hangs'),
    echoes: sum('echoes'),
    leaks: sum('leaks'),
    crashed: all.filter((t) => !t.alive).map((t) => t.target),
    failedValid: all.filter((t) => t.validAfter !== undefined && t.validAfter !== 'OK').map((t) => t.target),
  };
}

/** The findings as a text table: one row per method, a row per scenario, totals. */
export function formatFindings(all: TargetFindings[]): string {
  const head = ['service', 'method', 'role', 'cases', 'INT/UNK', 'deser', 'hangs', 'echoes', 'leaks', 'max ms', 'stall ms', 'alive'];
  const rows: string[][] = [];
  for (const t of all) {
    for (const m of t.methods)
      rows.push([
        t.target,
        m.method,
        m.role,
        String(m.cases),
        String(m.handlerErrors),
        String(m.deserializeErrors),
        String(m.hangs),
        String(m.echoes),
        String(m.leaks),
        String(m.maxLatencyMs),
        m.stallMs === undefined ? '-' : String(m.stallMs),
        m.alive ? 'yes' : 'NO',
      ]);
    for (const s of t.scenarios)
      rows.push([
        t.target,
        `scenario: ${s.name}`,
        '',
        '',
        s.ok ? '' : 'FAIL',
        '',
        '',
        '',
        '',
        s.healthMs === undefined ? '-' : String(s.healthMs),
        s.stallMs === undefined ? '-' : String(s.stallMs),
        s.alive ? 'yes' : 'NO',
      ]);
    rows.push([t.target, `valid call after: ${t.validAfter ?? '-'}`, '', '', '', '', '', '', '', '', '', t.alive ? 'yes' : 'NO']);
  }
  const tot = fuzzTotals(all);
  rows.push([
    'TOTAL',
    '',
    '',
    String(tot.cases),
    String(tot.handlerErrors),
    String(tot.deserializeErrors),
    String(tot.hangs),
    String(tot.echoes),
    String(tot.leaks),
    '',
    '',
    tot.crashed.length ? `crashed: ${tot.crashed.join(',')}` : 'all',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i >= 3 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
