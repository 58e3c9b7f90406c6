import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Host sensors the agent publishes in each heartbeat; undefined where the host has no such source. */
export interface HostSensors {
  /** The hottest CPU package/die sensor, °C. */
  cpuTemperatureCelsius?: number;
  /** CPU package power from the RAPL energy counters, W (over the time since the previous sample). */
  cpuPowerWatts?: number;
}

/** hwmon drivers that measure the CPU (Intel coretemp, AMD k10temp/zenpower, ARM cpu_thermal). */
const CPU_HWMON = new Set(['coretemp', 'k10temp', 'zenpower', 'cpu_thermal']);

const readText = (p: string): string | undefined => {
  try {
    return readFileSync(p, 'utf8').trim();
  } catch {
    return undefined;
  }
};
const readNum = (p: string): number | undefined => {
  const t = readText(p);
  const n = t === undefined || t === '' ? NaN : Number(t);
  return Number.isFinite(n) ? n : undefined;
};
const list = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
};

/** The hottest CPU temperature under `<sysfs>/class/hwmon` (millidegrees in temp*_input), else the x86_pkg_temp thermal zone. */
export function cpuTemperature(sysfsRoot: string): number | undefined {
  let best: number | undefined;
  const hwmon = join(sysfsRoot, 'class', 'hwmon');
  for (const h of list(hwmon)) {
    if (!CPU_HWMON.has(readText(join(hwmon, h, 'name')) ?? '')) continue;
    for (const f of list(join(hwmon, h))) {
      if (!/^temp\d+_input$/.test(f)) continue;
      const v = readNum(join(hwmon, h, f));
      if (v !== undefined && (best === undefined || v / 1000 > best)) best = v / 1000;
    }
  }
  if (best !== undefined) return best;
  const zones = join(sysfsRoot, 'class', 'thermal');
  for (const z of list(zones)) {
    if (readText(join(zones, z, 'type')) !== 'x86_pkg_temp') continue;
    const v = readNum(join(zones, z, 'temp'));
    if (v !== undefined && (best === undefined || v / 1000 > best)) best = v / 1000;
  }
  return best;
}

/** RAPL package domains (`intel-rapl:<n>`, AMD too) with their energy counter and its wrap-around range, µJ. */
function raplPackages(sysfsRoot: string): Array<{ name: string; energyUj: number; rangeUj: number }> {
  const dir = join(sysfsRoot, 'class', 'powercap');
  const out: Array<{ name: string; energyUj: number; rangeUj: number }> = [];
  for (const d of list(dir)) {
    if (!/^intel-rapl:\d+$/.test(d)) continue;
    const e = readNum(join(dir, d, 'energy_uj'));
    if (e === undefined) continue;
    out.push({ name: d, energyUj: e, rangeUj: readNum(join(dir, d, 'max_energy_range_uj')) ?? 0 });
  }
  return out;
}

/**
 * Samples the host's CPU sensors. RAPL gives energy, so power is the
 * difference between two samples: the first sample has none. A missing source
 * is one warning (once), never a failure: virtual machines usually expose
 * neither, and energy_uj is root-only on recent kernels.
 */
export class HostSensorReader {
  private last?: { atMs: number; energy: Map<string, number> };
  private readonly warned = new Set<string>();

  constructor(
    private readonly sysfsRoot: string,
    private readonly now: () => number = Date.now,
  ) {}

  read(): { sensors: HostSensors; warnings: string[] } {
    const warnings: string[] = [];
    const warnOnce = (k: string, msg: string) => {
      if (this.warned.has(k)) return;
      this.warned.add(k);
      warnings.push(msg);
    };
    const sensors: HostSensors = {};
    const t = cpuTemperature(this.sysfsRoot);
    if (t !== undefined) sensors.cpuTemperatureCelsius = t;
    else
      warnOnce(
        'temp',
        `no CPU temperature sensor under ${join(this.sysfsRoot, 'class/hwmon')} (coretemp, k10temp, zenpower) or an x86_pkg_temp thermal zone; CPU temperature is not reported`,
      );
    const pkgs = raplPackages(this.sysfsRoot);
    const at = this.now();
    if (!pkgs.length) warnOnce('rapl', `no readable RAPL energy counter under ${join(this.sysfsRoot, 'class/powercap')}; CPU power is not reported`);
    else {
      const energy = new Map(pkgs.map((p) => [p.name, p.energyUj]));
      if (this.last && at > this.last.atMs) {
        let uj = 0;
        for (const p of pkgs) {
          const prev = this.last.energy.get(p.name);
          if (prev === undefined) continue;
          // The counter wraps at max_energy_range_uj.
          uj += p.energyUj >= prev ? p.energyUj - prev : p.energyUj + p.rangeUj - prev;
        }
        sensors.cpuPowerWatts = uj / ((at - this.last.atMs) * 1000);
      }
      this.last = { atMs: at, energy };
    }
    return { sensors, warnings };
  }
}
