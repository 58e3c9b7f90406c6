import fc from 'fast-check';
import { Fleet } from './fleet';
import { explain, place } from './place';
import { planReplicas } from './plan';
import { makeModel, makeNode, type NodeSpec } from './testing';
import type { Explanation, Model, PlacementDecision, Profile, RejectReason } from './types';

const m = (profiles: ReadonlyArray<Partial<Profile>>) => makeModel('llama', profiles);
const fleetOf = (...specs: NodeSpec[]) => new Fleet(specs.map(makeNode));
const nodeReason = (e: Explanation, id: string) => e.profiles.flatMap((p) => p.pools.flatMap((x) => x.nodes)).find((n) => n.nodeId === id)?.reason;

describe('hard constraints: the reason a lone node is rejected', () => {
  it.each<[string, NodeSpec, Partial<Profile>, RejectReason]>([
    ['a Ready node with 8 free GPUs takes tp 4', { id: 'n1' }, { tp: 4 }, 'none'],
    ['unreachable → node-not-ready', { id: 'n1', condition: 'unreachable' }, { tp: 1 }, 'node-not-ready'],
    ['lost → node-not-ready', { id: 'n1', condition: 'lost' }, { tp: 1 }, 'node-not-ready'],
    ['cordoned → node-cordoned', { id: 'n1', cordoned: true }, { tp: 1 }, 'node-cordoned'],
    ['sglang not installed → engine-missing', { id: 'n1', engines: ['vllm'] }, { engine: 'sglang' }, 'engine-missing'],
    [
      'fp8 on cc 8.0 → engine-validation',
      { id: 'n1', gpuClass: 'a100-80g', cc: '8.0' },
      { gpuClass: 'a100-80g', args: ['--quantization', 'fp8'] },
      'engine-validation',
    ],
    ['fp8 on cc 8.9 is fine', { id: 'n1', gpuClass: 'l40s-45g', cc: '8.9' }, { gpuClass: 'l40s-45g', args: ['--quantization=fp8'] }, 'none'],
    [
      'fp8 KV cache on cc 8.6 → engine-validation',
      { id: 'n1', gpuClass: 'a10-24g', cc: '8.6' },
      { gpuClass: 'a10-24g', args: ['--kv-cache-dtype', 'fp8_e5m2'] },
      'engine-validation',
    ],
    [
      'bf16 on cc 7.5 → engine-validation',
      { id: 'n1', gpuClass: 't4-15g', cc: '7.5' },
      { gpuClass: 't4-15g', args: ['--dtype', 'bfloat16'] },
      'engine-validation',
    ],
    ['tp 8 with one failed GPU → insufficient-gpus', { id: 'n1', failedGpus: [3] }, { tp: 8 }, 'insufficient-gpus'],
    ['tp 16 on an 8-GPU node → insufficient-gpus', { id: 'n1' }, { tp: 16 }, 'insufficient-gpus'],
  ])('%s', (_t, spec, profile, reason) => {
    const e = explain(fleetOf(spec), m([profile]));
    expect(nodeReason(e, 'n1')).toBe(reason);
    expect(e.schedulable).toBe(reason === 'none');
  });

  it.each<[string, NodeSpec[], RejectReason, string]>([
    ['no IB → no-fabric', [{ id: 'a', fabrics: [] }, { id: 'b' }], 'no-fabric', 'a'],
    ['fabric unknown → no-fabric', [{ id: 'a', unknownFabric: true }, { id: 'b' }], 'no-fabric', 'a'],
    ['HCAs down → hca-not-active', [{ id: 'a', hcaActive: false }, { id: 'b' }], 'hca-not-active', 'a'],
  ])('multi-node: %s', (_t, specs, reason, id) => {
    const e = explain(fleetOf(...specs), m([{ tp: 16, nodes: 2 }]));
    expect(nodeReason(e, id)).toBe(reason);
    expect(e.schedulable).toBe(false);
  });

  it('a GPU class nobody has is rejected at pool level, naming what the fleet has', () => {
    const e = explain(fleetOf({ id: 'n1', gpuClass: 'a100-80g' }), m([{ gpuClass: 'h200-140g' }]));
    expect(e.profiles[0].reason).toBe('gpu-class');
    expect(e.profiles[0].pools[0].detail).toContain('a100-80g×8');
  });

  it('a model at its maximum is at-max-replicas on every profile and not schedulable', () => {
    const e = explain(fleetOf({ id: 'n1' }), m([{ tp: 1 }, { tp: 2 }]), { atMax: true, all: true });
    expect(e.schedulable).toBe(false);
    expect(e.profiles.map((p) => p.reason)).toEqual(['at-max-replicas', 'at-max-replicas']);
  });
});

describe('multi-node pools', () => {
  it('places a 2-node replica inside one fabric, never across two', () => {
    const f = fleetOf({ id: 'a1', fabrics: ['ib-a'] }, { id: 'b1', fabrics: ['ib-b'] }, { id: 'b2', fabrics: ['ib-b'] });
    const r = place(f, m([{ tp: 16, nodes: 2 }]));
    expect(r.ok && r.decision.fabric).toBe('ib-b');
    expect(r.ok && r.decision.shards.map((s) => s.nodeId)).toEqual(['b1', 'b2']);
  });

  it('is unschedulable when each fabric has one eligible node, with the reason per pool', () => {
    const e = explain(fleetOf({ id: 'a1', fabrics: ['ib-a'] }, { id: 'b1', fabrics: ['ib-b'] }), m([{ tp: 16, nodes: 2 }]));
    expect(e.schedulable).toBe(false);
    expect(e.profiles[0].pools.map((p) => [p.pool, p.reason])).toEqual([
      ['h100-80g/ib-a', 'not-enough-nodes'],
      ['h100-80g/ib-b', 'not-enough-nodes'],
    ]);
  });

  it('hands each shard only the chosen fabric’s ACTIVE HCAs, the GPUs’ NUMA node first', () => {
    const f = fleetOf({ id: 'a1', fabrics: ['ib-a', 'ib-b'] }, { id: 'a2', fabrics: ['ib-a'] });
    const r = place(f, m([{ tp: 8, nodes: 2, gpusPerNode: 4 }]));
    if (!r.ok) throw new Error('expected a placement');
    expect(r.decision.fabric).toBe('ib-a');
    for (const s of r.decision.shards) expect(s.hcas).toEqual(['mlx5_0', 'mlx5_1']);
    expect(r.decision.shards[0].gpuIndices).toEqual([0, 1, 2, 3]);
  });
});

describe('soft scores', () => {
  it('tries profiles by priority: the higher one wins when it fits', () => {
    const f = fleetOf({ id: 'h', gpuClass: 'h100-80g' }, { id: 'a', gpuClass: 'a100-80g', cc: '8.0' });
    const r = place(
      f,
      m([
        { name: 'a100', gpuClass: 'a100-80g', priority: 50 },
        { name: 'h100', gpuClass: 'h100-80g', priority: 100 },
      ]),
    );
    expect(r.ok && r.decision.profile.name).toBe('h100');
  });

  it('falls back to the lower-priority profile when the higher cannot be placed', () => {
    const f = fleetOf({ id: 'h', gpuClass: 'h100-80g', cordoned: true }, { id: 'a', gpuClass: 'a100-80g', cc: '8.0' });
    const r = place(
      f,
      m([
        { name: 'a100', gpuClass: 'a100-80g', priority: 50 },
        { name: 'h100', gpuClass: 'h100-80g', priority: 100 },
      ]),
    );
    expect(r.ok && r.decision.profile.name).toBe('a100');
  });

  it('bin packing: a partly used node is filled before an empty one', () => {
    const f = new Fleet([makeNode({ id: 'a' }), makeNode({ id: 'b' })], new Map([['b', new Set([0, 1])]]));
    const r = place(f, m([{ tp: 2 }]));
    expect(r.ok && r.decision.shards[0]).toMatchObject({ nodeId: 'b', gpuIndices: [2, 3] });
  });

  it('spread: a second replica of a model avoids the node and fabric of the first', () => {
    const f = fleetOf({ id: 'a1', fabrics: ['ib-a'] }, { id: 'a2', fabrics: ['ib-a'] }, { id: 'b1', fabrics: ['ib-b'] });
    const { decisions } = planReplicas(f, [{ model: m([{ tp: 2 }]), count: 3 }]);
    expect(decisions.map((d) => d.shards[0].nodeId)).toEqual(['a1', 'b1', 'a2']);
  });

  it('takes GPUs inside one NVLink group, the tightest that fits', () => {
    const f = new Fleet([makeNode({ id: 'n', nvlink: 'halves' })], new Map([['n', new Set([0])]]));
    const r = place(f, m([{ tp: 2 }]));
    expect(r.ok && r.decision.shards[0].gpuIndices).toEqual([1, 2]);
    const r4 = place(f, m([{ tp: 4 }]));
    expect(r4.ok && r4.decision.shards[0].gpuIndices).toEqual([4, 5, 6, 7]);
  });
});

// ---- properties over random fleets and catalogs ----

const CLASSES = ['h100-80g', 'a100-80g', 'l40s-45g'];
/** true with probability 1/n. */
const oneIn = (n: number) => fc.integer({ min: 1, max: n }).map((x) => x === 1);
const arbNode = (i: number) =>
  fc
    .record({
      gpuClass: fc.constantFrom(...CLASSES),
      gpus: fc.constantFrom(2, 4, 8),
      fabrics: fc.constantFrom<string[]>([], ['ib-a'], ['ib-b'], ['ib-a', 'ib-b'], ['ib-c']),
      unknownFabric: oneIn(8),
      hcaActive: oneIn(6).map((b) => !b),
      condition: fc.constantFrom<NodeSpec['condition']>('ready', 'ready', 'ready', 'unreachable', 'lost'),
      cordoned: oneIn(5),
      nvlink: fc.constantFrom<NodeSpec['nvlink']>('all', 'halves', 'none'),
      cc: fc.constantFrom('8.0', '8.9', '9.0'),
      failedGpus: fc.subarray([0, 1, 2, 3]),
    })
    .map((s): NodeSpec => ({ id: `n${String(i).padStart(3, '0')}`, ...s }));
const arbFleet = fc.integer({ min: 1, max: 24 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => arbNode(i))));
const arbProfile = fc
  .record({
    gpuClass: fc.constantFrom(...CLASSES),
    tp: fc.constantFrom(1, 2, 4, 8),
    nodes: fc.constantFrom(1, 1, 2, 3),
    priority: fc.integer({ min: 0, max: 3 }),
    args: fc.constantFrom<string[]>([], ['--quantization', 'fp8']),
  })
  .map((p) => ({ ...p, tp: p.tp * p.nodes, gpusPerNode: p.tp }));
const arbCatalog = fc
  .array(fc.tuple(fc.array(arbProfile, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 8 })
  .map((ms) => ms.map(([ps, count], i) => ({ model: makeModel(`m${i}`, ps), count })));

function planOf(specs: NodeSpec[], demands: Array<{ model: Model; count: number }>, reverse = false) {
  const nodes = specs.map(makeNode);
  return planReplicas(new Fleet(reverse ? [...nodes].reverse() : nodes), demands);
}

describe('placement invariants (fast-check)', () => {
  const byId = (specs: NodeSpec[]) => new Map(specs.map((s) => [s.id, makeNode(s)]));

  it('a multi-node replica never spans two fabrics, and every shard is attached to it with an ACTIVE HCA', () => {
    fc.assert(
      fc.property(arbFleet, arbCatalog, (specs, demands) => {
        const nodes = byId(specs);
        for (const d of planOf(specs, demands).decisions) {
          if (d.shards.length < 2) continue;
          expect(d.fabric).not.toBe('');
          for (const s of d.shards) {
            const n = nodes.get(s.nodeId)!;
            const att = n.fabrics.find((f) => f.known && f.name === d.fabric);
            expect(att).toBeDefined();
            expect(s.hcas.length).toBeGreaterThan(0);
            for (const h of s.hcas) expect(att!.hcas).toContain(h);
            expect(n.hcas.filter((h) => s.hcas.includes(h.name)).every((h) => h.active)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('no GPU is given twice, every GPU is of the profile’s class and healthy', () => {
    fc.assert(
      fc.property(arbFleet, arbCatalog, (specs, demands) => {
        const nodes = byId(specs);
        const seen = new Set<string>();
        for (const d of planOf(specs, demands).decisions) {
          for (const s of d.shards) {
            expect(s.gpuIndices).toHaveLength(d.profile.gpusPerNode);
            for (const g of s.gpuIndices) {
              const key = `${s.nodeId}/${g}`;
              expect(seen.has(key)).toBe(false);
              seen.add(key);
              const gpu = nodes.get(s.nodeId)!.gpus.find((x) => x.index === g)!;
              expect(gpu.gpuClass).toBe(d.gpuClass);
              expect(gpu.health).not.toBe('failed');
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a cordoned, unreachable or lost node never receives a shard', () => {
    fc.assert(
      fc.property(arbFleet, arbCatalog, (specs, demands) => {
        const nodes = byId(specs);
        for (const d of planOf(specs, demands).decisions) {
          for (const s of d.shards) {
            const n = nodes.get(s.nodeId)!;
            expect(n.cordoned).toBe(false);
            expect(n.condition).toBe('ready');
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the same input gives the same placement, whatever order the nodes come in', () => {
    fc.assert(
      fc.property(arbFleet, arbCatalog, (specs, demands) => {
        const strip = (ds: PlacementDecision[]) => ds.map((d) => ({ ...d, profile: d.profile.name }));
        const a = planOf(specs, demands);
        const b = planOf(specs, demands, true);
        expect(strip(b.decisions)).toEqual(strip(a.decisions));
        expect(b.unschedulable).toEqual(a.unschedulable);
      }),
      { numRuns: 200 },
    );
  });

  it('an unschedulable model always says why, per pool and per node', () => {
    fc.assert(
      fc.property(arbFleet, arbCatalog, (specs, demands) => {
        for (const u of planOf(specs, demands).unschedulable) {
          expect(u.explanation.profiles.length).toBeGreaterThan(0);
          for (const p of u.explanation.profiles) {
            expect(p.reason).not.toBe('none');
            expect(p.pools.length).toBeGreaterThan(0);
            for (const pool of p.pools) {
              expect(pool.detail).not.toBe('');
              for (const n of pool.nodes) if (n.reason !== 'none') expect(n.detail).not.toBe('');
            }
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
