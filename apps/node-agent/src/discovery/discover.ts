import type { agentV1 } from '@llmgw/contracts';
import { execFile } from 'node:child_process';
import { hostname as osHostname, networkInterfaces } from 'node:os';
import { assignFabrics, readInfiniband, type FabricLabel } from './infiniband';
import { parseFakeGpus } from './fake';
import { readHost } from './host';
import { MINIMAL_QUERY_FIELDS, QUERY_FIELDS, nvlinkGroups, nvlinkPeers, parseCudaVersion, parseQueryGpu, parseTopo, rowToGpu, rowToHealth } from './nvidia-smi';

export interface DiscoverOptions {
  nodeId?: string;
  /** The nvidia-smi command: an executable, optionally followed by arguments ("nvidia-smi", "node fake-smi.cjs"). */
  nvidiaSmi?: string;
  /** The sysfs mount (default /sys): InfiniBand under class/infiniband, NUMA under devices/system/node. */
  sysfsRoot?: string;
  /** `8xh100-80g,fabric=ib-a`: simulate the GPUs and fabric instead of asking the driver. */
  fakeGpus?: string;
  /** agent.yaml fabrics: explicit labels (preferred). */
  fabrics?: readonly FabricLabel[];
  /** GID subnet prefix → fabric name. */
  fabricPrefixes?: Readonly<Record<string, string>>;
  /** GPU class override for every GPU (agent.yaml gpu_class). */
  gpuClass?: string;
  modelCacheDir?: string;
  mgmtInterface?: string;
  labels?: Readonly<Record<string, string>>;
  agentVersion?: string;
  /** How long one nvidia-smi call may take, ms. */
  timeoutMs?: number;
}

/** What discovery found: the node, the GPUs' health now, and every source that failed. */
export interface Discovery {
  node: agentV1.NodeInfo__Output;
  gpuHealth: agentV1.GpuHealthReport__Output[];
  warnings: string[];
}

interface RunResult {
  ok: boolean;
  stdout: string;
  /** Why it failed: missing binary, exit status and output. */
  error?: string;
  missing?: boolean;
}

/** Runs a command with arguments; never throws. */
export function runCommand(cmd: string, args: string[], timeoutMs: number): Promise<RunResult> {
  const [bin, ...pre] = cmd.trim().split(/\s+/);
  return new Promise((resolve) => {
    execFile(bin, [...pre, ...args], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve({ ok: true, stdout: String(stdout) });
      const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number };
      if (e.code === 'ENOENT') return resolve({ ok: false, stdout: '', missing: true, error: `${bin} not found` });
      const out = `${String(stdout)}\n${String(stderr)}`.trim().split('\n').slice(0, 4).join(' | ');
      resolve({
        ok: false,
        stdout: String(stdout),
        error: e.killed ? `${bin} timed out after ${timeoutMs} ms` : `${bin} ${args[0] ?? ''} failed (exit ${e.code}): ${out || e.message}`,
      });
    });
  });
}

/** The IPv4 of `iface`, else the first non-internal IPv4, else the hostname. */
export function mgmtAddress(iface?: string): string {
  const all = networkInterfaces();
  const pick = (list: ReturnType<typeof networkInterfaces>[string]) => list?.find((a) => a.family === 'IPv4' && !a.internal)?.address;
  if (iface) return pick(all[iface]) ?? osHostname();
  for (const list of Object.values(all)) {
    const a = pick(list);
    if (a) return a;
  }
  return osHostname();
}

/** A node id from a hostname: lower case, [a-z0-9.-], at most 63. */
export function nodeIdFromHostname(h: string): string {
  return (
    h
      .toLowerCase()
      .replace(/[^a-z0-9.-]/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 63) || 'node'
  );
}

/**
 * Discovers the node (docs/node-agent.md#discovery): GPUs from nvidia-smi (query CSV,
 * topo -m, the CUDA version), HCAs and fabrics from sysfs, CPU, memory, NUMA
 * and disk. Never throws for a broken source: the result is partial and
 * `warnings` says what is missing and why.
 */
export async function discover(opts: DiscoverOptions = {}): Promise<Discovery> {
  const warnings: string[] = [];
  const sysfsRoot = opts.sysfsRoot ?? '/sys';
  const timeoutMs = opts.timeoutMs ?? 15_000;
  let gpus: agentV1.Gpu__Output[] = [];
  let gpuHealth: agentV1.GpuHealthReport__Output[] = [];
  let hcas: agentV1.Hca__Output[] = [];
  let fabrics: agentV1.FabricAttachment__Output[] = [];
  let groups: number[][] = [];
  let topoSource = '';
  let driver = '';
  let cuda = '';
  let simulatedNuma = 0;
  const simulated = opts.fakeGpus !== undefined;

  if (opts.fakeGpus !== undefined) {
    const fake = parseFakeGpus(opts.fakeGpus);
    gpus = fake.gpus;
    hcas = fake.hcas;
    fabrics = fake.fabrics;
    simulatedNuma = fake.numaNodes;
    gpuHealth = gpus.map((g) => ({
      index: g.index,
      health: 'GPU_HEALTH_OK',
      memoryUsedMib: 0,
      foreignMemoryUsedMib: 0,
      temperatureCelsius: 0,
      utilizationPercent: 0,
      xidErrorsTotal: 0,
      eccUncorrectedTotal: 0,
      reasons: [],
      clocksEventReasons: '',
      powerDrawWatts: 0,
    }));
    groups = nvlinkGroups(new Map(gpus.map((g) => [g.index, g.nvlinkPeers])));
    topoSource = 'sim';
    driver = 'sim';
  } else {
    const smi = opts.nvidiaSmi ?? 'nvidia-smi';
    const q = await queryGpus(smi, timeoutMs);
    warnings.push(...q.warnings);
    if (q.rows.length) {
      gpus = q.rows.map(rowToGpu);
      gpuHealth = q.rows.map((r) => rowToHealth(r));
      driver = gpus.find((g) => g.driverVersion)?.driverVersion ?? '';
      const topo = await runCommand(smi, ['topo', '-m'], timeoutMs);
      if (!topo.ok) warnings.push(`GPU topology unknown: ${topo.error}`);
      else {
        const t = parseTopo(topo.stdout);
        warnings.push(...t.errors.map((e) => `GPU topology: ${e}`));
        const peers = nvlinkPeers(t.gpus);
        for (const g of gpus) {
          const row = t.gpus.find((x) => x.index === g.index);
          if (row) g.numaNode = row.numaNode;
          g.nvlinkPeers = peers.get(g.index) ?? [];
        }
        groups = nvlinkGroups(peers);
        topoSource = 'nvidia-smi';
      }
      const plain = await runCommand(smi, [], timeoutMs);
      cuda = plain.ok ? parseCudaVersion(plain.stdout) : '';
      if (!cuda) warnings.push('CUDA version unknown (not in nvidia-smi output)');
    }
    const ib = readInfiniband(sysfsRoot);
    hcas = ib.hcas;
    warnings.push(...ib.warnings);
    const f = assignFabrics(hcas, opts.fabrics ?? [], opts.fabricPrefixes ?? {});
    fabrics = f.fabrics;
    warnings.push(...f.warnings);
  }
  if (opts.gpuClass) for (const g of gpus) g.gpuClass = opts.gpuClass;

  const modelCacheDir = opts.modelCacheDir ?? '/var/lib/llmgw-agent';
  const h = readHost({ sysfsRoot, modelCacheDir });
  warnings.push(...h.warnings);
  const hostname = osHostname();
  const node: agentV1.NodeInfo__Output = {
    nodeId: opts.nodeId ?? nodeIdFromHostname(hostname),
    hostname,
    mgmtAddr: mgmtAddress(opts.mgmtInterface),
    labels: { ...(opts.labels ?? {}) },
    gpus,
    hcas,
    fabrics,
    topology: { nvlinkGroups: groups.map((g) => ({ gpuIndices: g })), numaNodes: simulated ? simulatedNuma : h.host.numaNodes, source: topoSource },
    versions: { agent: opts.agentVersion ?? '', driver, cuda, engines: [] },
    cpuCores: h.host.cpuCores,
    memoryTotalMib: h.host.memoryTotalMib,
    simulated,
    diskFreeMib: h.host.diskFreeMib,
    diskTotalMib: h.host.diskTotalMib,
    modelCacheDir: h.host.diskPath,
    cpuModel: h.host.cpuModel,
    discoveryWarnings: warnings,
  };
  return { node, gpuHealth, warnings };
}

/** Runs the GPU query (falling back to the minimal field set on old drivers); rows + warnings, never throws. */
export async function queryGpus(smi: string, timeoutMs: number): Promise<{ rows: ReturnType<typeof parseQueryGpu>['rows']; warnings: string[] }> {
  const warnings: string[] = [];
  const ask = (fields: readonly string[]) => runCommand(smi, [`--query-gpu=${fields.join(',')}`, '--format=csv,noheader,nounits'], timeoutMs);
  let fields: readonly string[] = QUERY_FIELDS;
  let r = await ask(fields);
  if (!r.ok && /not a valid field|Invalid combination/i.test(r.error ?? '')) {
    warnings.push(`nvidia-smi refused part of the full query (old driver?); using the minimal field set: ${r.error}`);
    fields = MINIMAL_QUERY_FIELDS;
    r = await ask(fields);
  }
  if (!r.ok) {
    warnings.push(r.missing ? `no GPU: ${r.error} (no NVIDIA driver on this machine)` : `no GPU information: ${r.error}`);
    return { rows: [], warnings };
  }
  const p = parseQueryGpu(r.stdout, fields);
  warnings.push(...p.errors.map((e) => `nvidia-smi: ${e}`));
  if (!p.rows.length && !p.errors.length) warnings.push('no GPU: nvidia-smi lists none');
  return { rows: p.rows, warnings };
}
