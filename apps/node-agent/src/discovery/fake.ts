import type { agentV1 } from '@llmgw/contracts';

/** A parsed `--fake-gpus` spec. */
export interface FakeMachine {
  gpus: agentV1.Gpu__Output[];
  hcas: agentV1.Hca__Output[];
  fabrics: agentV1.FabricAttachment__Output[];
  numaNodes: number;
}

const CLASS = /^([a-z0-9]+)-(\d+)g$/;

/**
 * `--fake-gpus 8xh100-80g,fabric=ib-a`: a machine with 8 simulated GPUs of
 * class h100-80g (memory = 80 GiB), split over two NUMA nodes, and — with
 * `fabric=` — one simulated 400 Gb/s HCA per two GPUs on that fabric
 * (`mlx5_0`, …). Several GPU groups are comma-separated
 * (`4xh100-80g,4xl40s-45g`); `hcas=<n>` overrides the HCA count. Throws a
 * message naming the bad part.
 */
export function parseFakeGpus(spec: string): FakeMachine {
  const gpus: agentV1.Gpu__Output[] = [];
  let fabric: string | undefined;
  let hcaCount: number | undefined;
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const kv = /^(\w+)=(.+)$/.exec(part);
    if (kv) {
      if (kv[1] === 'fabric') {
        if (!/^[a-z0-9][a-z0-9.-]{0,62}$/.test(kv[2])) throw new Error(`--fake-gpus: fabric name ${JSON.stringify(kv[2])} must be [a-z0-9.-]`);
        fabric = kv[2];
      } else if (kv[1] === 'hcas') {
        hcaCount = Number(kv[2]);
        if (!Number.isInteger(hcaCount) || hcaCount < 1 || hcaCount > 64) throw new Error(`--fake-gpus: hcas must be 1–64, got ${kv[2]}`);
      } else throw new Error(`--fake-gpus: unknown key ${kv[1]} (use fabric=<name>, hcas=<n>)`);
      continue;
    }
    const m = /^(\d+)x(.+)$/.exec(part);
    const cls = m && CLASS.exec(m[2]);
    if (!m || !cls || Number(m[1]) < 1) throw new Error(`--fake-gpus: ${JSON.stringify(part)} is not <count>x<class> (e.g. 8xh100-80g)`);
    for (let i = 0; i < Number(m[1]); i++) {
      const index = gpus.length;
      gpus.push({
        index,
        uuid: `GPU-sim-${cls[1]}-${String(index).padStart(4, '0')}`,
        name: `Simulated ${cls[1].toUpperCase()} ${cls[2]}GB`,
        memoryTotalMib: Number(cls[2]) * 1024,
        pciBusId: `00000000:${(0x10 + index).toString(16).toUpperCase().padStart(2, '0')}:00.0`,
        numaNode: 0,
        computeCapability: '',
        gpuClass: m[2],
        nvlinkPeers: [],
        migMode: 'MIG_MODE_DISABLED',
        eccEnabled: true,
        eccSupported: true,
        driverVersion: 'sim',
        powerLimitWatts: 0,
      });
    }
  }
  if (!gpus.length) throw new Error('--fake-gpus: no GPUs given (e.g. 8xh100-80g,fabric=ib-a)');
  const numaNodes = gpus.length > 1 ? 2 : 1;
  const half = Math.ceil(gpus.length / numaNodes);
  for (const g of gpus) g.numaNode = Math.floor(g.index / half);
  // GPUs of one class are one NVLink domain, as on an HGX board.
  for (const g of gpus) g.nvlinkPeers = gpus.filter((o) => o.gpuClass === g.gpuClass && o.index !== g.index).map((o) => o.index);
  const hcas: agentV1.Hca__Output[] = [];
  const fabrics: agentV1.FabricAttachment__Output[] = [];
  if (fabric) {
    const n = hcaCount ?? Math.max(1, Math.ceil(gpus.length / 2));
    for (let i = 0; i < n; i++) {
      hcas.push({
        name: `mlx5_${i}`,
        pciBusId: `00000000:${(0x80 + i).toString(16).toUpperCase()}:00.0`,
        numaNode: Math.floor((i * numaNodes) / n),
        ports: [
          {
            port: 1,
            state: 'PORT_STATE_ACTIVE',
            physState: '5: LinkUp',
            rateGbps: 400,
            linkLayer: 'LINK_LAYER_INFINIBAND',
            gidPrefix: 'fe80:0000:0000:0000',
            lid: i + 1,
            smLid: 1,
          },
        ],
      });
    }
    fabrics.push({ fabric, hcas: hcas.map((h) => h.name), rateGbps: 400, source: 'FABRIC_SOURCE_LABEL' });
  }
  return { gpus, hcas, fabrics, numaNodes };
}
