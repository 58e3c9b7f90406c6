import { existsSync, readdirSync, statfsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** CPU, memory, disk and NUMA facts of the host. */
export interface HostFacts {
  cpuCores: number;
  cpuModel: string;
  memoryTotalMib: number;
  /** 0 when unknown. */
  numaNodes: number;
  /** The directory measured (the nearest existing ancestor of the model cache). */
  diskPath: string;
  diskFreeMib: number;
  diskTotalMib: number;
}

/** The NUMA node count from `<sysfs>/devices/system/node/node<N>`; 0 when unreadable. */
export function countNumaNodes(sysfsRoot: string): number {
  try {
    return readdirSync(join(sysfsRoot, 'devices', 'system', 'node')).filter((n) => /^node\d+$/.test(n)).length;
  } catch {
    return 0;
  }
}

/** Free and total space of the filesystem holding `dir` (or its nearest existing ancestor), MiB. */
export function diskSpace(dir: string): { path: string; freeMib: number; totalMib: number } {
  let p = resolve(dir);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  const s = statfsSync(p);
  const mib = (blocks: number) => Math.floor((blocks * s.bsize) / (1024 * 1024));
  return { path: p, freeMib: mib(s.bavail), totalMib: mib(s.blocks) };
}

/** Reads the host; a source that fails leaves its fields at 0 and adds a warning. */
export function readHost(opts: { sysfsRoot: string; modelCacheDir: string }): { host: HostFacts; warnings: string[] } {
  const warnings: string[] = [];
  const cpuList = cpus();
  const host: HostFacts = {
    cpuCores: cpuList.length,
    cpuModel: cpuList[0]?.model?.trim() ?? '',
    memoryTotalMib: Math.floor(totalmem() / (1024 * 1024)),
    numaNodes: countNumaNodes(opts.sysfsRoot),
    diskPath: opts.modelCacheDir,
    diskFreeMib: 0,
    diskTotalMib: 0,
  };
  if (!host.numaNodes) warnings.push(`cannot read NUMA nodes under ${join(opts.sysfsRoot, 'devices/system/node')}`);
  try {
    const d = diskSpace(opts.modelCacheDir);
    host.diskPath = d.path;
    host.diskFreeMib = d.freeMib;
    host.diskTotalMib = d.totalMib;
  } catch (e) {
    warnings.push(`cannot read free disk space under ${opts.modelCacheDir}: ${(e as Error).message}`);
  }
  return { host, warnings };
}
