import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cpuTemperature, HostSensorReader } from './sensors';

/** A sysfs tree laid out as the kernel does (hwmon, thermal zones, powercap), values in its units. */
function sysfs(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'llmgw-sysfs-'));
  for (const [p, v] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), `${v}\n`);
  }
  return root;
}

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
const tree = (f: Record<string, string>) => {
  const r = sysfs(f);
  roots.push(r);
  return r;
};

describe('host sensors from sysfs', () => {
  it('takes the hottest CPU hwmon sensor and ignores other drivers (NVMe, ACPI)', () => {
    const root = tree({
      'class/hwmon/hwmon0/name': 'nvme',
      'class/hwmon/hwmon0/temp1_input': '71850',
      'class/hwmon/hwmon1/name': 'coretemp',
      'class/hwmon/hwmon1/temp1_input': '52000',
      'class/hwmon/hwmon1/temp2_input': '58000',
      'class/hwmon/hwmon1/temp2_label': 'Core 0',
    });
    expect(cpuTemperature(root)).toBe(58);
  });

  it('falls back to the x86_pkg_temp thermal zone', () => {
    const root = tree({
      'class/thermal/thermal_zone0/type': 'acpitz',
      'class/thermal/thermal_zone0/temp': '27800',
      'class/thermal/thermal_zone1/type': 'x86_pkg_temp',
      'class/thermal/thermal_zone1/temp': '49000',
    });
    expect(cpuTemperature(root)).toBe(49);
  });

  it('RAPL power is the energy difference over time, across a counter wrap; the first sample has none', () => {
    const files = {
      'class/powercap/intel-rapl:0/energy_uj': '1000000',
      'class/powercap/intel-rapl:0/max_energy_range_uj': '262143328850',
      'class/powercap/intel-rapl:0:0/energy_uj': '999999999',
      'class/powercap/intel-rapl:1/energy_uj': '262143000000',
      'class/powercap/intel-rapl:1/max_energy_range_uj': '262143328850',
    };
    const root = tree(files);
    let t = 1_000;
    const r = new HostSensorReader(root, () => t);
    expect(r.read().sensors.cpuPowerWatts).toBeUndefined();
    // 2 s later: package 0 used 300 J; package 1 wrapped 0.32885 J after its last reading and used 100 J more.
    writeFileSync(join(root, 'class/powercap/intel-rapl:0/energy_uj'), '301000000\n');
    writeFileSync(join(root, 'class/powercap/intel-rapl:1/energy_uj'), '100000000\n');
    t += 2_000;
    // (300 + 100.32885) J / 2 s; the subdomain intel-rapl:0:0 (core) is part of package 0, not added.
    expect(r.read().sensors.cpuPowerWatts).toBeCloseTo(200.164425, 5);
  });

  it('a host without sources (a VM) gets one warning per source, once, and no values', () => {
    const r = new HostSensorReader(tree({ 'class/hwmon/hwmon0/name': 'nvme' }));
    const first = r.read();
    expect(first.sensors).toEqual({});
    expect(first.warnings).toHaveLength(2);
    expect(first.warnings.join('\n')).toMatch(/CPU temperature is not reported[\s\S]*CPU power is not reported/);
    expect(r.read().warnings).toEqual([]);
  });
});
