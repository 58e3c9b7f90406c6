/**
 * A Prometheus text exposition (format 0.0.4) parser, tolerant by design: a
 * scrape is untrusted input from an engine of any version, so a line that
 * cannot be read is reported in `junk` and skipped, never thrown.
 *
 * Handles `# HELP` / `# TYPE` (with HELP escapes `\\` and `\n`), label values
 * with escapes (`\\`, `\"`, `\n`), NaN / +Inf / -Inf, optional timestamps,
 * histogram and summary children (`_bucket`, `_sum`, `_count`, `_created`,
 * quantiles), CRLF line ends and ANSI escape sequences.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped' | 'info' | 'stateset' | 'gaugehistogram';

/** One sample line. `name` is the full series name, e.g. `vllm:ttft_seconds_bucket`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** Milliseconds since the epoch, when the line carries one. */
  timestampMs?: number;
  /** The family this sample belongs to (the name without `_bucket` etc. when TYPE says so). */
  family: string;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

export interface JunkLine {
  /** 1-based line number. */
  line: number;
  text: string;
  reason: string;
}

export interface ParsedExposition {
  /** Families by name, in first-seen order. */
  families: Map<string, MetricFamily>;
  /** Every sample, in document order. */
  samples: Sample[];
  junk: JunkLine[];
}

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped', 'info', 'stateset', 'gaugehistogram']);
const CHILD_SUFFIXES: Partial<Record<MetricType, string[]>> = {
  histogram: ['_bucket', '_sum', '_count', '_created', '_gsum', '_gcount'],
  gaugehistogram: ['_bucket', '_gsum', '_gcount'],
  summary: ['_sum', '_count', '_created'],
  counter: ['_total', '_created'],
  info: ['_info'],
};

/** Parses a sample value: Go/Prometheus float syntax plus NaN, ±Inf. */
export function parseValue(s: string): number | undefined {
  switch (s) {
    case 'NaN':
      return NaN;
    case '+Inf':
    case 'Inf':
    case '+inf':
    case 'inf':
      return Infinity;
    case '-Inf':
    case '-inf':
      return -Infinity;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) && !/^[+-]?0[xX][0-9a-fA-F]+$/.test(s)) return undefined;
  const v = Number(s);
  return Number.isNaN(v) ? undefined : v;
}

function unescapeHelp(s: string): string {
  return s.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}

/** Reads `{a="b",c="d"}` starting at `i` (which points at `{`). */
function readLabels(line: string, i: number): { labels: Record<string, string>; end: number } | string {
  const labels: Record<string, string> = {};
  i++;
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (line[i] === '}') return { labels, end: i + 1 };
    const m = LABEL_NAME.exec(line.slice(i));
    if (!m) return `bad label name at column ${i + 1}`;
    const key = m[0];
    i += key.length;
    while (line[i] === ' ') i++;
    if (line[i] !== '=') return `expected '=' after label ${key}`;
    i++;
    while (line[i] === ' ') i++;
    if (line[i] !== '"') return `expected '"' for label ${key}`;
    i++;
    let val = '';
    for (;;) {
      const c = line[i];
      if (c === undefined) return `unterminated value for label ${key}`;
      if (c === '\\') {
        const n = line[i + 1];
        if (n === 'n') val += '\n';
        else if (n === '\\' || n === '"') val += n;
        else val += '\\' + (n ?? '');
        i += 2;
        continue;
      }
      if (c === '"') {
        i++;
        break;
      }
      val += c;
      i++;
    }
    labels[key] = val;
    while (line[i] === ' ') i++;
    if (line[i] === ',') {
      i++;
      continue;
    }
    if (line[i] === '}') return { labels, end: i + 1 };
    return `expected ',' or '}' after label ${key}`;
  }
}

/** Parses exposition text. Never throws; unreadable lines land in `junk`. */
export function parsePrometheusText(text: string): ParsedExposition {
  const families = new Map<string, MetricFamily>();
  const samples: Sample[] = [];
  const junk: JunkLine[] = [];
  const lines = text.replace(ANSI, '').split('\n');

  const familyFor = (sampleName: string): MetricFamily => {
    const direct = families.get(sampleName);
    if (direct && direct.type !== 'counter') return direct;
    for (const [type, suffixes] of Object.entries(CHILD_SUFFIXES) as Array<[MetricType, string[]]>) {
      for (const suf of suffixes) {
        if (!sampleName.endsWith(suf)) continue;
        const f = families.get(sampleName.slice(0, -suf.length));
        if (f && f.type === type) return f;
      }
    }
    if (direct) return direct;
    const f: MetricFamily = { name: sampleName, type: 'untyped', samples: [] };
    families.set(sampleName, f);
    return f;
  };

  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].replace(/\r$/, '');
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (trimmed.startsWith('#')) {
      const m = /^#\s*(HELP|TYPE)\s+(\S+)(?:\s+(.*))?$/.exec(trimmed);
      if (!m) continue; // plain comment
      const [, kind, name, rest = ''] = m;
      if (!NAME.test(name) || NAME.exec(name)![0] !== name) {
        junk.push({ line: n + 1, text: line, reason: `bad metric name in ${kind}` });
        continue;
      }
      let f = families.get(name);
      if (kind === 'TYPE') {
        const t = rest.trim().toLowerCase() as MetricType;
        if (!TYPES.has(t)) {
          junk.push({ line: n + 1, text: line, reason: `unknown type "${rest.trim()}"` });
          continue;
        }
        if (!f) families.set(name, (f = { name, type: t, samples: [] }));
        else f.type = t;
      } else {
        if (!f) families.set(name, (f = { name, type: 'untyped', samples: [] }));
        f.help = unescapeHelp(rest);
      }
      continue;
    }
    const nm = NAME.exec(trimmed);
    if (!nm) {
      junk.push({ line: n + 1, text: line, reason: 'no metric name' });
      continue;
    }
    const name = nm[0];
    let i = name.length;
    let labels: Record<string, string> = {};
    if (trimmed[i] === '{') {
      const r = readLabels(trimmed, i);
      if (typeof r === 'string') {
        junk.push({ line: n + 1, text: line, reason: r });
        continue;
      }
      labels = r.labels;
      i = r.end;
    }
    const rest = trimmed.slice(i).trim().split(/\s+/);
    if (trimmed[i] !== ' ' && trimmed[i] !== '\t') {
      junk.push({ line: n + 1, text: line, reason: 'expected whitespace before the value' });
      continue;
    }
    if (rest.length < 1 || rest.length > 2 || rest[0] === '') {
      junk.push({ line: n + 1, text: line, reason: 'expected a value and an optional timestamp' });
      continue;
    }
    const value = parseValue(rest[0]);
    if (value === undefined) {
      junk.push({ line: n + 1, text: line, reason: `bad value "${rest[0]}"` });
      continue;
    }
    let timestampMs: number | undefined;
    if (rest.length === 2) {
      const ts = parseValue(rest[1]);
      if (ts === undefined || !Number.isFinite(ts)) {
        junk.push({ line: n + 1, text: line, reason: `bad timestamp "${rest[1]}"` });
        continue;
      }
      timestampMs = ts;
    }
    const fam = familyFor(name);
    const s: Sample = { name, labels, value, family: fam.name };
    if (timestampMs !== undefined) s.timestampMs = timestampMs;
    fam.samples.push(s);
    samples.push(s);
  }
  return { families, samples, junk };
}
