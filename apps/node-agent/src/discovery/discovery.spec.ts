import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { discover, nodeIdFromHostname } from './discover';
import { parseFakeGpus } from './fake';
import { assignFabrics, gidPrefix, parseRate, readInfiniband } from './infiniband';
import { canonicalField, gpuClass, nvlinkGroups, nvlinkPeers, parseCudaVersion, parseQueryGpu, parseTopo, rowToGpu, rowToHealth } from './nvidia-smi';

const FIX = join(__dirname, '../../../../fixtures');
const SMI = join(FIX, 'gpu/nvidia-smi');
const H200 = join(FIX, 'hardware/nvidia-h200');
const IB_ROOT = join(FIX, 'gpu/infiniband/prometheus-procfs/sys');
const read = (p: string) => readFileSync(p, 'utf8');

describe('gpuClass: normalize(name) + "-" + round(GiB) + "g"', () => {
  it.each([
    ['NVIDIA H200', 143771, 'h200-140g'],
    ['NVIDIA H100 80GB HBM3', 81559, 'h100-80g'],
    ['NVIDIA L40S', 46068, 'l40s-45g'],
    ['NVIDIA A100-SXM4-80GB', 81920, 'a100-80g'],
    ['NVIDIA A100-SXM4-40GB', 40960, 'a100-40g'],
    ['NVIDIA GeForce RTX 4090', 24564, '4090-24g'],
    ['NVIDIA GeForce RTX 4080', 16376, '4080-16g'],
    ['Tesla V100-SXM2-16GB', 16160, 'v100-16g'],
    ['NVIDIA RTX A6000', 49140, 'a6000-48g'],
  ])('%s with %i MiB → %s', (name, mib, want) => {
    expect(gpuClass(name, mib)).toBe(want);
  });
});

describe('nvidia-smi --query-gpu captures', () => {
  const captures = readdirSync(SMI).filter((f) => f.endsWith('.query-gpu.csv'));
  const expected: Record<string, { cls: string; mig: string; cc: string; driver: string; name: string; watts: number }> = {
    'h100-80gb-hbm3': { cls: 'h100-80g', mig: 'MIG_MODE_DISABLED', cc: '9.0', driver: '590.48.01', name: 'NVIDIA H100 80GB HBM3', watts: 700 },
    'h100-mig': { cls: 'h100-80g', mig: 'MIG_MODE_ENABLED', cc: '9.0', driver: '590.48.01', name: 'NVIDIA H100 80GB HBM3', watts: 700 },
    h200: { cls: 'h200-140g', mig: 'MIG_MODE_DISABLED', cc: '9.0', driver: '590.48.01', name: 'NVIDIA H200', watts: 700 },
    'h200-mig': { cls: 'h200-140g', mig: 'MIG_MODE_ENABLED', cc: '9.0', driver: '590.48.01', name: 'NVIDIA H200', watts: 700 },
    l40s: { cls: 'l40s-45g', mig: 'MIG_MODE_UNSUPPORTED', cc: '8.9', driver: '595.80', name: 'NVIDIA L40S', watts: 350 },
  };
  it('covers every capture (10: five machines, idle and under load)', () => {
    expect(captures).toHaveLength(10);
  });
  it.each(captures)('%s', (file) => {
    const machine = /nvidia-(.+?)__/.exec(file)![1];
    const want = expected[machine];
    const { rows, errors } = parseQueryGpu(read(join(SMI, file)));
    expect(errors).toEqual([]);
    expect(rows).toHaveLength(1);
    const gpu = rowToGpu(rows[0]);
    expect(gpu).toMatchObject({
      index: 0,
      name: want.name,
      gpuClass: want.cls,
      migMode: want.mig,
      computeCapability: want.cc,
      driverVersion: want.driver,
      eccEnabled: true,
      eccSupported: true,
      powerLimitWatts: want.watts,
    });
    expect(gpu.uuid).toMatch(/^GPU-/);
    const health = rowToHealth(rows[0]);
    expect(health.clocksEventReasons).toMatch(/^0x[0-9a-f]{16}$/);
    expect(health.eccUncorrectedTotal).toBe(0);
    if (want.mig === 'MIG_MODE_ENABLED') {
      expect(health.health).toBe('GPU_HEALTH_DEGRADED');
      expect(health.reasons).toContain('MIG mode enabled (the GPU is partitioned)');
    }
    if (file.includes('.idle.') && want.mig !== 'MIG_MODE_ENABLED') expect(health).toMatchObject({ health: 'GPU_HEALTH_OK', reasons: [] });
  });

  it('under load, memory held by processes llmgw did not start degrades the GPU', () => {
    const { rows } = parseQueryGpu(read(join(SMI, 'linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.load.query-gpu.csv')));
    expect(rowToHealth(rows[0])).toMatchObject({
      health: 'GPU_HEALTH_DEGRADED',
      memoryUsedMib: 19818,
      foreignMemoryUsedMib: 19818,
      utilizationPercent: 100,
      powerDrawWatts: 631.95,
    });
    expect(rowToHealth(rows[0], 19818)).toMatchObject({ health: 'GPU_HEALTH_OK', foreignMemoryUsedMib: 0 });
  });
});

describe('the H200 hardware capture', () => {
  it('asks for clocks_throttle_reasons and reads the answer under clocks_event_reasons; 143771 MiB is h200-140g', () => {
    const text = read(join(H200, 'query-gpu.csv'));
    expect(text).toContain('clocks_event_reasons.active');
    const { rows, errors } = parseQueryGpu(text);
    expect(errors).toEqual([]);
    expect(rowToGpu(rows[0])).toMatchObject({
      gpuClass: 'h200-140g',
      memoryTotalMib: 143771,
      driverVersion: '580.159.04',
      pciBusId: '00000000:00:06.0',
      computeCapability: '9.0',
      powerLimitWatts: 700,
    });
    expect(rowToHealth(rows[0])).toMatchObject({
      health: 'GPU_HEALTH_OK',
      clocksEventReasons: '0x0000000000000001',
      powerDrawWatts: 79.79,
      temperatureCelsius: 37,
      memoryUsedMib: 0,
    });
  });

  it('parses the noheader,nounits form by the fields asked for', () => {
    const fields = ['index', 'uuid', 'name', 'memory.total', 'compute_cap', 'pci.bus_id'];
    const { rows, errors } = parseQueryGpu(read(join(H200, 'query-gpu-noheader-nounits.csv')), fields);
    expect(errors).toEqual([]);
    expect(rowToGpu(rows[0])).toMatchObject({
      index: 0,
      uuid: 'GPU-35975a73-7769-4d54-c326-097dbcf602f8',
      gpuClass: 'h200-140g',
      migMode: 'MIG_MODE_UNSUPPORTED',
      eccSupported: false,
    });
    expect(rowToGpu(rows[0]).powerLimitWatts).toBe(0); // not asked for: unknown, and placement falls back to facility.default_gpu_watts
  });

  it('reads NUMA affinity from topo -m despite the escape codes in its header', () => {
    expect(parseTopo(read(join(H200, 'topo-m.txt')))).toEqual({ gpus: [{ index: 0, links: { GPU0: 'X' }, cpuAffinity: '0-15', numaNode: 0 }], errors: [] });
  });

  it.each([
    ['clocks_throttle_reasons.active', 'clocks_event_reasons.active'],
    ['clocks_event_reasons.active', 'clocks_event_reasons.active'],
    ['memory.total [MiB]', 'memory.total'],
    ['power.draw [W]', 'power.draw'],
  ])('column %s is read as %s', (h, want) => expect(canonicalField(h)).toBe(want));

  it('takes the throttle name in a header as well', () => {
    const { rows } = parseQueryGpu('index, name, memory.total [MiB], clocks_throttle_reasons.active\n0, NVIDIA H200, 143771 MiB, 0x0000000000000004\n');
    expect(rowToHealth(rows[0]).clocksEventReasons).toBe('0x0000000000000004');
  });
});

describe('nvidia-smi topo -m', () => {
  it.each(readdirSync(SMI).filter((f) => f.endsWith('.topo-m.txt')))('%s: one GPU on NUMA node 0', (file) => {
    const t = parseTopo(read(join(SMI, file)));
    expect(t.errors).toEqual([]);
    expect(t.gpus.map((g) => [g.index, g.numaNode])).toEqual([[0, 0]]);
  });

  // Synthetic, in the documented multi-GPU layout (tabs, NV<n>, NIC columns): no such capture exists.
  const four = [
    '\t\x1b[4mGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m',
    'GPU0\t X \tNV18\tNV18\tSYS\tPIX\t0-31\t0\t\tN/A',
    'GPU1\tNV18\t X \tNV18\tSYS\tNODE\t0-31\t0\t\tN/A',
    'GPU2\tNV18\tNV18\t X \tSYS\tSYS\t0-31\t0\t\tN/A',
    'GPU3\tSYS\tSYS\tSYS\t X \tSYS\t32-63\t1\t\tN/A',
    'NIC0\tPIX\tNODE\tSYS\tSYS\t X ',
    '',
    'Legend:',
  ].join('\n');
  it('reads NVLink peers, groups and NUMA from a multi-GPU matrix', () => {
    const t = parseTopo(four);
    expect(t.gpus.map((g) => g.numaNode)).toEqual([0, 0, 0, 1]);
    const peers = nvlinkPeers(t.gpus);
    expect([...peers.entries()]).toEqual([
      [0, [1, 2]],
      [1, [0, 2]],
      [2, [0, 1]],
      [3, []],
    ]);
    expect(nvlinkGroups(peers)).toEqual([[0, 1, 2]]);
    expect(t.gpus[0].links.NIC0).toBe('PIX');
  });
  it('says so when there is no matrix', () => {
    expect(parseTopo("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.").errors[0]).toMatch(/no matrix/);
  });
});

describe('InfiniBand from sysfs', () => {
  it('reads every HCA and port of the procfs capture', () => {
    const { hcas, warnings } = readInfiniband(IB_ROOT);
    expect(warnings).toEqual([]);
    expect(hcas.map((h) => [h.name, h.ports.map((p) => [p.port, p.state, p.rateGbps, p.linkLayer])])).toEqual([
      ['hfi1_0', [[1, 'PORT_STATE_ACTIVE', 100, 'LINK_LAYER_INFINIBAND']]],
      [
        'mlx4_0',
        [
          [1, 'PORT_STATE_ACTIVE', 40, 'LINK_LAYER_INFINIBAND'],
          [2, 'PORT_STATE_ACTIVE', 40, 'LINK_LAYER_INFINIBAND'],
        ],
      ],
      ['mlx5_0', [[1, 'PORT_STATE_ACTIVE', 25, 'LINK_LAYER_INFINIBAND']]],
    ]);
    expect(hcas[0].ports[0].physState).toBe('5: LinkUp');
  });

  it('labels win; unlabelled HCAs without a mapped prefix are unknown', () => {
    const { hcas } = readInfiniband(IB_ROOT);
    const r = assignFabrics(hcas, [{ name: 'ib-a', hcas: ['mlx4_0', 'mlx5_0'] }]);
    expect(r.fabrics).toEqual([
      { fabric: 'ib-a', hcas: ['mlx4_0', 'mlx5_0'], rateGbps: 25, source: 'FABRIC_SOURCE_LABEL' },
      { fabric: 'unknown', hcas: ['hfi1_0'], rateGbps: 100, source: 'FABRIC_SOURCE_UNKNOWN' },
    ]);
    expect(r.warnings.join('\n')).toMatch(/hfi1_0 belong to no known fabric/);
  });

  it.each([
    ['100 Gb/sec (4X EDR)', 100],
    ['400 Gb/sec (4X NDR)', 400],
    ['2.5 Gb/sec (1X SDR)', 2],
    ['', 0],
  ])('rate %j → %i Gbit/s', (raw, want) => expect(parseRate(raw)).toBe(want));
  it.each([
    ['fe80:0000:0000:0000:0002:c903:0043:a4b1', 'fe80:0000:0000:0000'],
    ['FE80:0:0:1:2:3:4:5', 'fe80:0000:0000:0001'],
    ['0000:0000:0000:0000:0000:ffff:0a98:000c', '0000:0000:0000:0000'],
    ['garbage', ''],
  ])('GID %s has subnet prefix %j', (gid, want) => expect(gidPrefix(gid)).toBe(want));

  describe('a built sysfs tree (RoCE, GIDs, half-populated)', () => {
    let root: string;
    const put = (p: string, v: string) => {
      mkdirSync(dirname(join(root, p)), { recursive: true });
      writeFileSync(join(root, p), v + '\n');
    };
    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), 'llmgw-sysfs-'));
      const port = (hca: string, ll: string, gid: string, state = '4: ACTIVE') => {
        put(`class/infiniband/${hca}/ports/1/state`, state);
        put(`class/infiniband/${hca}/ports/1/phys_state`, '5: LinkUp');
        put(`class/infiniband/${hca}/ports/1/rate`, '400 Gb/sec (4X NDR)');
        put(`class/infiniband/${hca}/ports/1/link_layer`, ll);
        put(`class/infiniband/${hca}/ports/1/gids/0`, gid);
        put(`class/infiniband/${hca}/ports/1/lid`, ll === 'InfiniBand' ? '0x1a' : '0x0');
      };
      port('mlx5_0', 'InfiniBand', 'fe80:0000:0000:00a1:b8ce:f603:0012:3456');
      port('mlx5_1', 'InfiniBand', 'fe80:0000:0000:00a1:b8ce:f603:0012:3457');
      port('mlx5_2', 'InfiniBand', 'fe80:0000:0000:0000:b8ce:f603:0012:3458');
      port('mlx5_3', 'Ethernet', 'fe80:0000:0000:0000:0ac0:ebff:fe12:3456');
      port('mlx5_4', 'InfiniBand', 'fe80:0000:0000:00b2:0000:0000:0000:0001', '1: DOWN');
      put('class/infiniband/mlx5_5/ports/1/rate', '200 Gb/sec (4X HDR)'); // no state, no link_layer
      mkdirSync(join(root, 'devices/system/node/node0'), { recursive: true });
      mkdirSync(join(root, 'devices/system/node/node1'), { recursive: true });
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('tells RoCE from InfiniBand and reads GID prefixes and LIDs', () => {
      const { hcas, warnings } = readInfiniband(root);
      const p = (n: string) => hcas.find((h) => h.name === n)!.ports[0];
      expect(p('mlx5_0')).toMatchObject({ linkLayer: 'LINK_LAYER_INFINIBAND', gidPrefix: 'fe80:0000:0000:00a1', lid: 0x1a, rateGbps: 400 });
      expect(p('mlx5_3')).toMatchObject({ linkLayer: 'LINK_LAYER_ETHERNET', gidPrefix: 'fe80:0000:0000:0000', lid: 0 });
      expect(p('mlx5_5')).toMatchObject({ state: 'PORT_STATE_UNSPECIFIED', linkLayer: 'LINK_LAYER_UNSPECIFIED', rateGbps: 200 });
      expect(warnings).toEqual(['infiniband mlx5_5 port 1: cannot read state, link_layer']);
    });

    it('maps a unique GID prefix to its fabric; the OpenSM default never identifies one; DOWN ports attach to nothing', () => {
      const { hcas } = readInfiniband(root);
      const table = { 'fe80:0000:0000:00a1': 'ib-a', 'fe80:0000:0000:00b2': 'ib-b', 'fe80:0000:0000:0000': 'never' };
      expect(assignFabrics(hcas, [], table).fabrics).toEqual([
        { fabric: 'ib-a', hcas: ['mlx5_0', 'mlx5_1'], rateGbps: 400, source: 'FABRIC_SOURCE_GID_PREFIX' },
        { fabric: 'unknown', hcas: ['mlx5_2', 'mlx5_3'], rateGbps: 400, source: 'FABRIC_SOURCE_UNKNOWN' },
      ]);
      const labelled = assignFabrics(
        hcas,
        [
          { name: 'roce-a', hcas: ['mlx5_3'] },
          { name: 'ib-b', hcas: ['mlx5_4', 'mlx5_9'] },
        ],
        table,
      );
      expect(labelled.fabrics.map((f) => [f.fabric, f.hcas, f.source])).toEqual([
        ['ib-a', ['mlx5_0', 'mlx5_1'], 'FABRIC_SOURCE_GID_PREFIX'],
        ['roce-a', ['mlx5_3'], 'FABRIC_SOURCE_LABEL'],
        ['unknown', ['mlx5_2'], 'FABRIC_SOURCE_UNKNOWN'],
      ]);
      expect(labelled.warnings).toEqual(
        expect.arrayContaining([
          'fabric ib-b: HCA mlx5_9 is configured but not present',
          'HCA mlx5_4 is labelled but has no ACTIVE port; left out of its fabric',
        ]),
      );
    });

    it('discover() on it: partial result with warnings, NUMA nodes counted, never a throw', async () => {
      const d = await discover({ nvidiaSmi: join(root, 'no-such-nvidia-smi'), sysfsRoot: root, modelCacheDir: join(root, 'cache/models'), nodeId: 'gpu-a-01' });
      expect(d.node.gpus).toEqual([]);
      expect(d.node.hcas).toHaveLength(6);
      expect(d.node.topology!.numaNodes).toBe(2);
      expect(d.node.modelCacheDir).toBe(root);
      expect(d.node.diskFreeMib).toBeGreaterThan(0);
      expect(d.warnings[0]).toMatch(/^no GPU: .*no-such-nvidia-smi not found \(no NVIDIA driver on this machine\)$/);
      expect(d.node.discoveryWarnings).toEqual(d.warnings);
    });
  });
});

describe('discover() through an nvidia-smi command', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-smi-'));
    // Answers like the H200 machine did: the query in noheader,nounits form, topo -m, and the plain table.
    const row =
      '0, GPU-35975a73-7769-4d54-c326-097dbcf602f8, NVIDIA H200, 143771, 0, 9.0, 580.159.04, 00000000:00:06.0, 37, 0, 79.79, Enabled, 0, Disabled, 0x0000000000000001, 700.00';
    writeFileSync(join(dir, 'row.csv'), row + '\n');
    writeFileSync(
      join(dir, 'smi.cjs'),
      [
        "const fs = require('fs'); const a = process.argv.slice(2);",
        `if (a[0] && a[0].startsWith('--query-gpu')) process.stdout.write(fs.readFileSync(${JSON.stringify(join(dir, 'row.csv'))}, 'utf8'));`,
        `else if (a[0] === 'topo') process.stdout.write(fs.readFileSync(${JSON.stringify(join(H200, 'topo-m.txt'))}, 'utf8'));`,
        "else process.stdout.write('| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |\\n');",
      ].join('\n'),
    );
    writeFileSync(join(dir, 'mismatch.sh'), '#!/bin/sh\necho "Failed to initialize NVML: Driver/library version mismatch"\nexit 18\n');
    chmodSync(join(dir, 'mismatch.sh'), 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads GPUs, health, NUMA, driver and CUDA', async () => {
    const d = await discover({
      nvidiaSmi: `${process.execPath} ${join(dir, 'smi.cjs')}`,
      sysfsRoot: join(dir, 'nosys'),
      modelCacheDir: dir,
      nodeId: 'gpu-h200-01',
    });
    expect(d.node.gpus).toEqual([
      expect.objectContaining({ index: 0, gpuClass: 'h200-140g', numaNode: 0, migMode: 'MIG_MODE_DISABLED', eccEnabled: true, powerLimitWatts: 700 }),
    ]);
    expect(d.gpuHealth[0]).toMatchObject({ health: 'GPU_HEALTH_OK', clocksEventReasons: '0x0000000000000001' });
    expect(d.node.versions).toMatchObject({ driver: '580.159.04', cuda: '13.0' });
    expect(d.node.topology).toMatchObject({ source: 'nvidia-smi', nvlinkGroups: [] });
    expect(d.node.simulated).toBe(false);
  });

  it('a driver/library mismatch is a warning and a GPU-less result, not a crash', async () => {
    const d = await discover({ nvidiaSmi: join(dir, 'mismatch.sh'), sysfsRoot: join(dir, 'nosys'), modelCacheDir: dir });
    expect(d.node.gpus).toEqual([]);
    expect(d.warnings[0]).toMatch(/no GPU information: .*exit 18.*Driver\/library version mismatch/);
    expect(d.node.cpuCores).toBeGreaterThan(0);
    expect(d.node.memoryTotalMib).toBeGreaterThan(0);
  });

  it('a garbled row is reported and skipped', () => {
    expect(parseQueryGpu('0, GPU-x, NVIDIA H200\n').errors[0]).toMatch(/3 columns, expected 16/);
  });

  it('finds the CUDA version in the plain table', () => {
    expect(parseCudaVersion('| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0     |')).toBe('13.0');
  });
});

describe('--fake-gpus', () => {
  it('8xh100-80g,fabric=ib-a: eight GPUs on two NUMA nodes, one NVLink domain, four HCAs on ib-a', () => {
    const m = parseFakeGpus('8xh100-80g,fabric=ib-a');
    expect(m.gpus.map((g) => [g.index, g.gpuClass, g.memoryTotalMib, g.numaNode])).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => [i, 'h100-80g', 81920, i < 4 ? 0 : 1]),
    );
    expect(m.gpus[0].nvlinkPeers).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(m.fabrics).toEqual([{ fabric: 'ib-a', hcas: ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3'], rateGbps: 400, source: 'FABRIC_SOURCE_LABEL' }]);
  });
  it('mixes classes and takes an HCA count', () => {
    const m = parseFakeGpus('2xh100-80g,2xl40s-45g,fabric=ib-b,hcas=1');
    expect(m.gpus.map((g) => g.gpuClass)).toEqual(['h100-80g', 'h100-80g', 'l40s-45g', 'l40s-45g']);
    expect(m.gpus[2].nvlinkPeers).toEqual([3]);
    expect(m.hcas).toHaveLength(1);
  });
  it.each([['8xh100'], ['h100-80g'], ['0xh100-80g'], ['8xh100-80g,fabric=IB A'], ['8xh100-80g,zone=a'], ['']])('refuses %j', (spec) => {
    expect(() => parseFakeGpus(spec)).toThrow(/--fake-gpus/);
  });
  it('discover() reports them as simulated', async () => {
    const d = await discover({ fakeGpus: '2xh200-140g,fabric=ib-a', modelCacheDir: tmpdir() });
    expect(d.node).toMatchObject({ simulated: true, topology: { source: 'sim', numaNodes: 2, nvlinkGroups: [{ gpuIndices: [0, 1] }] } });
    expect(d.node.gpus.map((g) => g.gpuClass)).toEqual(['h200-140g', 'h200-140g']);
    expect(d.gpuHealth.map((h) => h.health)).toEqual(['GPU_HEALTH_OK', 'GPU_HEALTH_OK']);
  });
});

it.each([
  ['GPU-A-01.example', 'gpu-a-01.example'],
  ['my_host', 'my-host'],
  ['--x', 'x'],
])('node id from hostname %s → %s', (h, want) => {
  expect(nodeIdFromHostname(h)).toBe(want);
});
