import type { agentV1 } from '@llmgw/contracts';

/**
 * The fields the agent asks `nvidia-smi --query-gpu=… --format=csv,noheader,nounits`
 * for, in order. `clocks_throttle_reasons.active` is the old name every
 * driver still accepts; newer drivers answer it under
 * `clocks_event_reasons.active` (the parser takes both).
 */
export const QUERY_FIELDS = [
  'index',
  'uuid',
  'name',
  'memory.total',
  'memory.used',
  'compute_cap',
  'driver_version',
  'pci.bus_id',
  'temperature.gpu',
  'utilization.gpu',
  'power.draw',
  'ecc.mode.current',
  'ecc.errors.uncorrected.volatile.total',
  'mig.mode.current',
  'clocks_throttle_reasons.active',
  'power.limit',
] as const;

/** What old drivers (no compute_cap, no MIG) still answer: the fallback query. */
export const MINIMAL_QUERY_FIELDS = ['index', 'uuid', 'name', 'memory.total', 'memory.used', 'driver_version', 'pci.bus_id'] as const;

/** One GPU row: canonical field name → value, units and "[N/A]" removed (absent = unknown). */
export type GpuRow = Map<string, string>;

/** A column name as the driver prints it ("memory.total [MiB]", "clocks_throttle_reasons.active") → the canonical one. */
export function canonicalField(header: string): string {
  return header
    .replace(/\s*\[[^\]]*\]\s*$/, '')
    .trim()
    .replace(/^clocks_throttle_reasons\./, 'clocks_event_reasons.');
}

const NOT_AVAILABLE = /^\[?(N\/A|Not Supported|Unknown Error|Insufficient Permissions|Requested functionality has been deprecated)\]?$/i;

/** A cell without its unit ("143771 MiB" → "143771", "79.79 W" → "79.79", "0 %" → "0"); undefined for N/A. */
export function cellValue(raw: string): string | undefined {
  const v = raw.trim();
  if (!v || NOT_AVAILABLE.test(v)) return undefined;
  const m = /^(-?\d+(?:\.\d+)?)\s*(MiB|W|%|C|MHz)$/.exec(v);
  return m ? m[1] : v;
}

/** Splits one CSV line as nvidia-smi writes it: ", " separated, names never quoted or containing commas. */
function splitRow(line: string): string[] {
  return line.split(',').map((c) => c.trim());
}

/**
 * Parses `--query-gpu` CSV output, with or without its header and units.
 * Without a header the columns are `fields` (what was asked for). Rows whose
 * column count does not match are reported in `errors` and skipped.
 */
export function parseQueryGpu(text: string, fields: readonly string[] = QUERY_FIELDS): { rows: GpuRow[]; errors: string[] } {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const errors: string[] = [];
  if (!lines.length) return { rows: [], errors: ['nvidia-smi printed nothing'] };
  let columns = fields.map(canonicalField);
  let body = lines;
  const first = splitRow(lines[0]);
  if (first.includes('index') || first.includes('uuid') || first.some((c) => /\[[^\]]+\]$/.test(c))) {
    columns = first.map(canonicalField);
    body = lines.slice(1);
  }
  const rows: GpuRow[] = [];
  for (const line of body) {
    const cells = splitRow(line);
    if (cells.length !== columns.length) {
      errors.push(`unexpected nvidia-smi line (${cells.length} columns, expected ${columns.length}): ${line.slice(0, 200)}`);
      continue;
    }
    const row: GpuRow = new Map();
    columns.forEach((c, i) => {
      const v = cellValue(cells[i]);
      if (v !== undefined) row.set(c, v);
    });
    if (!row.has('index') || !/^\d+$/.test(row.get('index')!)) {
      errors.push(`nvidia-smi row without a GPU index: ${line.slice(0, 200)}`);
      continue;
    }
    rows.push(row);
  }
  return { rows, errors };
}

/** Words in product names that say nothing about the model. */
const NOISE = new Set(['nvidia', 'geforce', 'tesla', 'quadro', 'rtx', 'gpu', 'graphics']);

/**
 * The model token of a product name: lower case, vendor and family words
 * dropped, the first token that carries a digit, kept whole ("NVIDIA H100
 * 80GB HBM3" → "h100", "NVIDIA GeForce RTX 4090" → "4090", "NVIDIA
 * A100-SXM4-80GB" → "a100", "NVIDIA L40S" → "l40s"). Size tokens ("80GB")
 * are never the model.
 */
export function normalizeGpuName(name: string): string {
  const tokens = name
    .toLowerCase()
    .split(/[\s\-_/]+/)
    .filter((t) => t && !NOISE.has(t));
  const model = tokens.find((t) => /\d/.test(t) && !/^\d+(gb|g)$/.test(t));
  return (model ?? tokens[0] ?? 'unknown').replace(/[^a-z0-9]/g, '');
}

/**
 * The GPU class (docs/node-agent.md#discovery): normalize(name) + "-" + round(GiB) + "g",
 * from the size the driver reports: an H200's 143771 MiB is `h200-140g`, an
 * L40S's 46068 MiB `l40s-45g`.
 */
export function gpuClass(name: string, memoryMib: number): string {
  return `${normalizeGpuName(name)}-${Math.round(memoryMib / 1024)}g`;
}

const num = (v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
};

function migMode(v: string | undefined): agentV1.MigMode__Output {
  if (v === undefined) return 'MIG_MODE_UNSUPPORTED';
  if (/^enabled$/i.test(v)) return 'MIG_MODE_ENABLED';
  if (/^disabled$/i.test(v)) return 'MIG_MODE_DISABLED';
  return 'MIG_MODE_UNSPECIFIED';
}

/** Thresholds of the health verdict. */
export interface HealthThresholds {
  /** At or above: DEGRADED. */
  degradedTemperatureC: number;
  /** Memory held by processes the agent did not start, at or above which the GPU is DEGRADED, MiB. */
  foreignMemoryMib: number;
}

export const DEFAULT_HEALTH_THRESHOLDS: HealthThresholds = { degradedTemperatureC: 90, foreignMemoryMib: 1024 };

/** One row → the static Gpu (class override applied by the caller). */
export function rowToGpu(row: GpuRow): agentV1.Gpu__Output {
  const name = row.get('name') ?? 'unknown';
  const mib = num(row.get('memory.total')) ?? 0;
  const ecc = row.get('ecc.mode.current');
  return {
    index: Number(row.get('index')),
    uuid: row.get('uuid') ?? '',
    name,
    memoryTotalMib: mib,
    pciBusId: row.get('pci.bus_id') ?? '',
    numaNode: -1,
    computeCapability: row.get('compute_cap') ?? '',
    gpuClass: gpuClass(name, mib),
    nvlinkPeers: [],
    migMode: migMode(row.get('mig.mode.current')),
    eccEnabled: ecc !== undefined && /^enabled$/i.test(ecc),
    eccSupported: ecc !== undefined,
    driverVersion: row.get('driver_version') ?? '',
    powerLimitWatts: num(row.get('power.limit')) ?? 0,
  };
}

/**
 * One row → a health report. `engineMemoryMib` is memory the agent's own
 * engines hold on this GPU (0 at discovery), so the rest is foreign.
 */
export function rowToHealth(row: GpuRow, engineMemoryMib = 0, t: HealthThresholds = DEFAULT_HEALTH_THRESHOLDS): agentV1.GpuHealthReport__Output {
  const used = num(row.get('memory.used')) ?? 0;
  const foreign = Math.max(0, used - engineMemoryMib);
  const temp = num(row.get('temperature.gpu')) ?? 0;
  const ecc = num(row.get('ecc.errors.uncorrected.volatile.total')) ?? 0;
  const failed: string[] = [];
  const degraded: string[] = [];
  if (ecc > 0) failed.push(`${ecc} uncorrected ECC errors`);
  if (row.get('remapped_rows.failure') && /^yes$/i.test(row.get('remapped_rows.failure')!)) failed.push('row remapping failed');
  if (row.get('remapped_rows.pending') && /^yes$/i.test(row.get('remapped_rows.pending')!)) degraded.push('row remapping pending (reset needed)');
  if (temp >= t.degradedTemperatureC) degraded.push(`temperature ${temp}C`);
  if (foreign >= t.foreignMemoryMib) degraded.push(`${foreign} MiB held by processes llmgw did not start`);
  if (/^enabled$/i.test(row.get('mig.mode.current') ?? '')) degraded.push('MIG mode enabled (the GPU is partitioned)');
  return {
    index: Number(row.get('index')),
    health: failed.length ? 'GPU_HEALTH_FAILED' : degraded.length ? 'GPU_HEALTH_DEGRADED' : 'GPU_HEALTH_OK',
    memoryUsedMib: used,
    foreignMemoryUsedMib: foreign,
    temperatureCelsius: temp,
    utilizationPercent: num(row.get('utilization.gpu')) ?? 0,
    xidErrorsTotal: 0,
    eccUncorrectedTotal: ecc,
    reasons: [...failed, ...degraded],
    clocksEventReasons: row.get('clocks_event_reasons.active') ?? '',
    powerDrawWatts: num(row.get('power.draw')) ?? 0,
  };
}

/** The CUDA version from plain `nvidia-smi` output ("CUDA Version: 13.0"); '' when absent. */
export function parseCudaVersion(text: string): string {
  return /CUDA Version:\s*([\d.]+)/.exec(text)?.[1] ?? '';
}

/** One GPU row of `nvidia-smi topo -m`. */
export interface TopoGpu {
  index: number;
  /** Connection to every other device by column name ("GPU1" → "NV18", "mlx5_0" → "PIX"). */
  links: Record<string, string>;
  cpuAffinity: string;
  /** -1 when N/A. */
  numaNode: number;
}

const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Parses the matrix of `nvidia-smi topo -m` (terminal escapes in the header
 * stripped). Rows are the GPUs; NIC rows and the legend are ignored.
 */
export function parseTopo(text: string): { gpus: TopoGpu[]; errors: string[] } {
  const lines = text.replace(ANSI, '').split(/\r?\n/);
  const headerAt = lines.findIndex((l) => /\bGPU0\b/.test(l) && /Affinity/i.test(l));
  if (headerAt < 0) return { gpus: [], errors: ['nvidia-smi topo -m: no matrix header found'] };
  const header = lines[headerAt].split('\t').map((c) => c.trim());
  const gpus: TopoGpu[] = [];
  for (const line of lines.slice(headerAt + 1)) {
    if (!line.trim() || /^Legend/i.test(line.trim())) break;
    const cells = line.split('\t').map((c) => c.trim());
    const m = /^GPU(\d+)$/.exec(cells[0]);
    if (!m) continue;
    const rec: Record<string, string> = {};
    header.forEach((h, i) => {
      if (h) rec[h] = cells[i] ?? '';
    });
    const links: Record<string, string> = {};
    for (const h of header) if (h && !/Affinity|NUMA ID/i.test(h)) links[h] = rec[h];
    const numa = Number(rec['NUMA Affinity']);
    gpus.push({
      index: Number(m[1]),
      links,
      cpuAffinity: rec['CPU Affinity'] ?? '',
      numaNode: Number.isInteger(numa) && rec['NUMA Affinity'] !== '' ? numa : -1,
    });
  }
  if (!gpus.length) return { gpus, errors: ['nvidia-smi topo -m: no GPU rows'] };
  return { gpus, errors: [] };
}

/** NVLink peers per GPU index: the GPU columns whose cell is NV<n>. */
export function nvlinkPeers(topo: TopoGpu[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const g of topo) {
    const peers = Object.entries(g.links)
      .filter(([col, v]) => /^GPU\d+$/.test(col) && /^NV\d+$/.test(v))
      .map(([col]) => Number(col.slice(3)))
      .filter((i) => i !== g.index)
      .sort((a, b) => a - b);
    out.set(g.index, peers);
  }
  return out;
}

/** GPUs grouped by NVLink reachability (connected components of size ≥ 2), each sorted. */
export function nvlinkGroups(peers: Map<number, number[]>): number[][] {
  const seen = new Set<number>();
  const groups: number[][] = [];
  for (const start of [...peers.keys()].sort((a, b) => a - b)) {
    if (seen.has(start)) continue;
    const group: number[] = [];
    const stack = [start];
    seen.add(start);
    while (stack.length) {
      const g = stack.pop()!;
      group.push(g);
      for (const p of peers.get(g) ?? [])
        if (!seen.has(p)) {
          seen.add(p);
          stack.push(p);
        }
    }
    if (group.length > 1) groups.push(group.sort((a, b) => a - b));
  }
  return groups;
}
