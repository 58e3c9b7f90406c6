import { makeModel, SimFleet, type NodeSpec } from '../testing';
import type { Model } from '../types';
import { Reconciler, type ReconcilerOptions } from './reconciler';
import type { PlacedEndpoint } from './types';

class Harness {
  t = 1_000_000;
  token: number | undefined = 1;
  ids = 0;
  published: PlacedEndpoint[][] = [];
  catalog: Model[];
  readonly rec: Reconciler;
  constructor(
    readonly fleet: SimFleet,
    models: Model[],
    opts: Partial<ReconcilerOptions> = {},
  ) {
    this.catalog = models;
    this.rec = new Reconciler({
      catalog: () => this.catalog,
      sink: fleet,
      publisher: { publish: async (l) => void this.published.push([...l]) },
      fencingToken: () => this.token,
      now: () => this.t,
      newReplicaId: (m) => `${m}-${String(++this.ids).padStart(4, '0')}`,
      drainTimeoutMs: 10_000,
      reportGraceMs: 5_000,
      backoffBaseMs: 1_000,
      ...opts,
    });
  }
  pass() {
    return this.rec.reconcile(this.fleet.view());
  }
  /** A pass that places, every shard Ready, a pass that sees it. */
  async placeReady() {
    await this.pass();
    this.fleet.readyAll();
    await this.pass();
  }
  advance(ms: number) {
    this.t += ms;
  }
  get endpoints() {
    return this.published.at(-1) ?? [];
  }
  starts() {
    return this.fleet.commands.filter((c) => c.kind === 'start');
  }
}

const fourNodesTwoFabrics: NodeSpec[] = [
  { id: 'a1', fabrics: ['ib-a'] },
  { id: 'a2', fabrics: ['ib-a'] },
  { id: 'b1', fabrics: ['ib-b'] },
  { id: 'b2', fabrics: ['ib-b'] },
];
const big = makeModel('big', [{ tp: 16, nodes: 2, gpusPerNode: 8 }], { min: 1, max: 2 });
const small = makeModel('small', [{ tp: 2 }], { min: 2, max: 4 });

describe('Reconciler: missing replicas', () => {
  it('places a 2-node replica inside one fabric, starting workers before rank 0, and publishes it once Ready', async () => {
    const h = new Harness(new SimFleet(fourNodesTwoFabrics), [big]);
    const r = await h.pass();
    expect(r.placed).toBe(1);
    const starts = h.starts();
    expect(starts.map((c) => c.shardId)).toEqual(['big-0001-r1', 'big-0001-r0']);
    const specs = [...h.fleet.shards.values()].map((s) => s.spec!);
    expect(new Set(specs.map((s) => s.fabric))).toEqual(new Set(['ib-a']));
    const leaderNode = h.fleet.shards.get('big-0001-r0')!.nodeId;
    expect(specs.every((s) => s.nnodes === 2 && s.leaderPort > 0 && s.leaderAddr === h.fleet.nodes.get(leaderNode)!.mgmtAddr)).toBe(true);
    expect(h.endpoints).toEqual([]);
    h.fleet.readyAll();
    await h.pass();
    expect(h.endpoints).toEqual([
      expect.objectContaining({ id: 'big-0001', model: 'big', pool: 'h100-80g/ib-a', fabric: 'ib-a', gpuClass: 'h100-80g', engine: 'vllm', draining: false }),
    ]);
    expect(h.rec.replicaViews()[0].state).toBe('ready');
  });

  it('spreads replicas and never gives a GPU twice; a pass with nothing to do sends nothing', async () => {
    const h = new Harness(new SimFleet([{ id: 'n1' }, { id: 'n2' }]), [small]);
    await h.pass();
    const specs = [...h.fleet.shards.values()].map((s) => s.spec!);
    expect(specs.map((s) => s.shardId.slice(0, 10) + '@' + h.fleet.shards.get(s.shardId)!.nodeId)).toEqual(['small-0001@n1', 'small-0002@n2']);
    const n = h.fleet.commands.length;
    await h.pass();
    expect(h.fleet.commands.length).toBe(n);
  });

  it('says why a model cannot be placed', async () => {
    const h = new Harness(new SimFleet([{ id: 'n1', gpuClass: 'a100-80g' }]), [small]);
    const r = await h.pass();
    expect(r.unschedulable).toEqual(['small']);
    expect(h.rec.lastExplanation('small')!.profiles[0].reason).toBe('gpu-class');
  });
});

describe('Reconciler: failures', () => {
  it('stops the whole replica when one shard fails and re-places it after the backoff', async () => {
    const h = new Harness(new SimFleet(fourNodesTwoFabrics), [big]);
    await h.pass();
    h.fleet.readyAll();
    await h.pass();
    h.fleet.setState('big-0001-r1', 'failed', 'NCCL timeout');
    const r = await h.pass();
    expect(r.failed).toBe(1);
    expect(h.fleet.commands.filter((c) => c.kind === 'stop').map((c) => c.shardId)).toEqual(['big-0001-r0']);
    expect(h.endpoints).toEqual([]);
    expect(r.placed).toBe(0);
    h.advance(1_000);
    const r2 = await h.pass();
    expect(r2.placed).toBe(1);
    expect(h.rec.replicaViews().map((v) => v.id)).toEqual(['big-0002']);
  });

  it('treats a lost node’s replicas as failed and rebuilds them within one fabric on the survivors', async () => {
    const h = new Harness(new SimFleet([...fourNodesTwoFabrics, { id: 'b3', fabrics: ['ib-b'] }]), [big]);
    await h.pass();
    h.fleet.readyAll();
    await h.pass();
    const first = h.rec.replicaViews()[0];
    const lostNode = first.shards[1].nodeId;
    h.fleet.lose(lostNode);
    await h.pass();
    h.advance(1_000);
    await h.pass();
    const next = h.rec.replicaViews().find((v) => v.id !== first.id)!;
    const fabrics = next.shards.map((s) => h.fleet.nodes.get(s.nodeId)!.fabrics[0].name);
    expect(new Set(fabrics).size).toBe(1);
    expect(next.shards.map((s) => s.nodeId)).not.toContain(lostNode);
    // The survivor of the old replica was told to stop; the lost node was not sent anything.
    expect(h.fleet.commands.filter((c) => c.kind === 'stop').map((c) => c.nodeId)).toEqual([first.shards[0].nodeId]);
  });

  it('a failed replica whose Lost node comes back with its shard still running stops that shard too', async () => {
    const h = new Harness(new SimFleet(fourNodesTwoFabrics), [big]);
    await h.placeReady();
    const first = h.rec.replicaViews()[0];
    const lostNode = first.shards[1].nodeId;
    const lostShard = first.shards[1].shardId;
    h.fleet.lose(lostNode);
    await h.pass();
    // The node is back before the failed replica is forgotten; its agent still runs the shard.
    h.fleet.setNode(lostNode, { condition: 'ready' });
    for (let i = 0; i < 3; i++) await h.pass();
    expect(h.fleet.commands.filter((c) => c.kind === 'stop' && c.nodeId === lostNode).map((c) => c.shardId)).toEqual([lostShard]);
  });

  it('does not adopt a Lost node’s shards again: a single-node replica is re-placed on a survivor after one backoff', async () => {
    const one = makeModel('one', [{ tp: 1 }], { min: 1, max: 1 });
    const h = new Harness(new SimFleet([{ id: 'n1' }, { id: 'n2' }]), [one]);
    await h.placeReady();
    const lost = h.rec.replicaViews()[0].shards[0].nodeId;
    h.fleet.lose(lost); // inventory keeps listing its READY shard
    expect((await h.pass()).failed).toBe(1);
    for (let i = 0; i < 3; i++) expect(await h.pass()).toMatchObject({ failed: 0, adopted: 0, orphansStopped: 0 });
    h.advance(1_000);
    expect((await h.pass()).placed).toBe(1);
    expect(h.rec.replicaViews().map((v) => v.shards[0].nodeId)).toEqual([lost === 'n1' ? 'n2' : 'n1']);
  });

  it('never hands one port out twice on one management address, even across nodes (several agents on one host)', async () => {
    const m = makeModel('m', [{ tp: 1 }], { min: 4, max: 4 });
    const two = makeModel('two', [{ tp: 2, nodes: 2, gpusPerNode: 1 }], { min: 1, max: 1 });
    const fleet = new SimFleet([
      { id: 'x1', fabrics: ['ib-a'] },
      { id: 'x2', fabrics: ['ib-a'] },
    ]);
    for (const n of fleet.nodes.values()) fleet.setNode(n.id, { mgmtAddr: '127.0.0.1' });
    const h = new Harness(fleet, [two, m]);
    await h.pass();
    const ports = [...h.fleet.shards.values()].flatMap((s) => [s.spec!.httpPort, ...(s.spec!.rank === 0 && s.spec!.leaderPort ? [s.spec!.leaderPort] : [])]);
    expect(ports).toHaveLength(7);
    expect(new Set(ports).size).toBe(7);
  });

  it('fails a replica that never becomes Ready within the startup timeout', async () => {
    const m = makeModel('slow', [{ tp: 1, startupTimeoutMs: 60_000 }], { min: 1, max: 1 });
    const h = new Harness(new SimFleet([{ id: 'n1' }]), [m]);
    await h.pass();
    h.advance(64_999);
    expect((await h.pass()).failed).toBe(0);
    h.advance(2);
    expect((await h.pass()).failed).toBe(1);
  });

  it('doubles the backoff per consecutive failure', async () => {
    const m = makeModel('crashy', [{ tp: 1 }], { min: 1, max: 1 });
    const h = new Harness(new SimFleet([{ id: 'n1' }]), [m]);
    const crash = async () => {
      await h.pass();
      const id = h.rec.replicaViews().find((v) => v.state === 'starting')!.shards[0].shardId;
      h.fleet.setState(id, 'failed');
      await h.pass();
    };
    await crash();
    h.advance(1_000);
    await crash();
    h.advance(1_999);
    expect((await h.pass()).placed).toBe(0);
    h.advance(1);
    expect((await h.pass()).placed).toBe(1);
  });
});

describe('Reconciler: excess and drains', () => {
  it('withdraws an excess replica from routers before draining it, then stops it', async () => {
    const h = new Harness(new SimFleet([{ id: 'n1' }, { id: 'n2' }]), [small]);
    await h.pass();
    h.fleet.readyAll();
    await h.pass();
    expect(h.endpoints.map((e) => e.id)).toEqual(['small-0001', 'small-0002']);
    h.rec.setTarget('small', { min: 1, max: 1 });
    const before = h.published.length;
    await h.pass();
    expect(h.published[before].map((e) => e.id)).toEqual(['small-0001']);
    expect(h.fleet.commands.at(-1)).toMatchObject({ kind: 'drain', shardId: 'small-0002-r0' });
    h.advance(9_999);
    await h.pass();
    expect(h.fleet.commands.filter((c) => c.kind === 'stop')).toEqual([]);
    h.advance(1);
    await h.pass();
    expect(h.fleet.commands.filter((c) => c.kind === 'stop').map((c) => c.shardId)).toEqual(['small-0002-r0']);
    await h.pass();
    expect(h.rec.replicaViews().map((v) => v.id)).toEqual(['small-0001']);
  });

  it('moves replicas off a draining node one at a time, each replacement Ready before the old one drains', async () => {
    const m = makeModel('m', [{ tp: 4 }], { min: 2, max: 2 });
    const h = new Harness(new SimFleet([{ id: 'n1' }, { id: 'n2' }]), [m]);
    await h.placeReady();
    // both replicas landed on different nodes (spread); put one more node in and drain n1
    h.fleet.addNode({ id: 'n3' });
    h.fleet.setNode('n1', { cordoned: true, draining: true });
    await h.pass();
    const views = h.rec.replicaViews();
    const replacement = views.find((v) => v.state === 'starting')!;
    expect(replacement.shards[0].nodeId).not.toBe('n1');
    const old = views.find((v) => v.shards[0].nodeId === 'n1')!;
    expect(old.state).toBe('ready');
    expect(h.endpoints.map((e) => e.id)).toContain(old.id);
    h.fleet.readyAll();
    await h.pass();
    expect(h.rec.replicaViews().find((v) => v.id === old.id)!.state).toBe('draining');
    expect(h.endpoints.map((e) => e.id)).not.toContain(old.id);
    expect(h.endpoints).toHaveLength(2);
  });
});

describe('Reconciler: the drain timeout of a node drain', () => {
  /** Two replicas of m on n1 and n2; n3 joins and n1 drains with `timeoutMs`; returns the replica moved off n1, once draining. */
  async function drainingOff(timeoutMs: number | undefined) {
    const m = makeModel('m', [{ tp: 4 }], { min: 2, max: 2 });
    const h = new Harness(new SimFleet([{ id: 'n1' }, { id: 'n2' }]), [m]);
    await h.placeReady();
    h.fleet.addNode({ id: 'n3' });
    h.fleet.setNode('n1', { cordoned: true, draining: true, ...(timeoutMs ? { drainTimeoutMs: timeoutMs } : {}) });
    await h.pass();
    h.fleet.readyAll();
    await h.pass();
    const old = h.rec.replicaViews().find((v) => v.shards[0].nodeId === 'n1')!;
    expect(old.state).toBe('draining');
    return { h, old };
  }
  const stops = (h: Harness) => h.fleet.commands.filter((c) => c.kind === 'stop').map((c) => c.shardId);

  it('`ctl drain --replica-timeout 2s`: the engine is told 2 s, and the replica is stopped 2 s after its drain began, not at the default', async () => {
    const { h, old } = await drainingOff(2_000);
    expect(h.fleet.commands.filter((c) => c.kind === 'drain')).toEqual([expect.objectContaining({ shardId: `${old.id}-r0`, timeoutMs: 2_000 })]);
    expect(h.rec.nextDeadlineMs()).toBe(h.t + 2_000);
    h.advance(1_999);
    await h.pass();
    expect(stops(h)).toEqual([]);
    h.advance(1);
    await h.pass();
    expect(stops(h)).toEqual([`${old.id}-r0`]);
    expect(h.rec.nextDeadlineMs()).toBeUndefined();
  });

  it('without --replica-timeout the scheduler default holds', async () => {
    const { h, old } = await drainingOff(undefined);
    expect(h.fleet.commands.find((c) => c.kind === 'drain')!.timeoutMs).toBe(10_000);
    h.advance(9_999);
    await h.pass();
    expect(stops(h)).toEqual([]);
    h.advance(1);
    await h.pass();
    expect(stops(h)).toEqual([`${old.id}-r0`]);
  });

  it('an uncordon before the replacement is Ready ends the move: the replica stays, nothing extra is placed', async () => {
    const m = makeModel('m', [{ tp: 4 }], { min: 1, max: 1 });
    const h = new Harness(new SimFleet([{ id: 'n1' }]), [m]);
    await h.placeReady();
    const [only] = h.rec.replicaViews();
    h.fleet.setNode('n1', { cordoned: true, draining: true, drainTimeoutMs: 2_000 });
    await h.pass(); // no other node: the move waits for room
    h.fleet.setNode('n1', { cordoned: false, draining: false, drainTimeoutMs: undefined });
    await h.pass();
    h.fleet.readyAll();
    await h.pass();
    expect(h.rec.replicaViews().map((v) => [v.id, v.state])).toEqual([[only.id, 'ready']]);
    expect(h.starts()).toHaveLength(1);
    expect(h.fleet.commands.some((c) => c.kind === 'drain' || c.kind === 'stop')).toBe(false);
  });

  it('stops a draining replica as soon as the agent reports it drained, before the timeout', async () => {
    const { h, old } = await drainingOff(60_000);
    h.advance(100);
    await h.pass();
    expect(stops(h)).toEqual([]);
    h.fleet.drained(`${old.id}-r0`);
    await h.pass();
    expect(stops(h)).toEqual([`${old.id}-r0`]);
  });
});

describe('Reconciler: restarts and leadership', () => {
  it('adopts the replicas a restarted scheduler finds running: nothing started twice, orphans stopped after one pass', async () => {
    const fleet = new SimFleet(fourNodesTwoFabrics);
    const h1 = new Harness(fleet, [big, small]);
    await h1.pass();
    fleet.readyAll();
    await h1.pass();
    const running = h1.rec.replicaViews().map((v) => v.id);
    fleet.put('a1', undefined, 'ready', 'mystery-r0', 'mystery');
    const startsBefore = h1.starts().length;
    const h2 = new Harness(fleet, [big, small]);
    h2.ids = 1000;
    const r = await h2.pass();
    expect(r.adopted).toBe(running.length);
    expect(r.placed).toBe(0);
    expect(h2.starts().length).toBe(startsBefore);
    expect(h2.rec.replicaViews().map((v) => [v.id, v.state, v.adopted])).toEqual(running.map((id) => [id, 'ready', true]));
    expect(h2.endpoints.map((e) => e.id).sort()).toEqual([...running].sort());
    expect(r.orphansStopped).toBe(0);
    const r2 = await h2.pass();
    expect(r2.orphansStopped).toBe(1);
    expect(fleet.commands.at(-1)).toMatchObject({ kind: 'stop', shardId: 'mystery-r0' });
  });

  it('fails an adopted replica with a rank missing, and replaces it', async () => {
    const fleet = new SimFleet(fourNodesTwoFabrics);
    const h1 = new Harness(fleet, [big]);
    await h1.pass();
    fleet.readyAll();
    await h1.pass();
    fleet.shards.delete('big-0001-r1');
    const h2 = new Harness(fleet, [big]);
    h2.ids = 1000;
    const r = await h2.pass();
    expect(r.adopted).toBe(1);
    expect(r.failed).toBe(0);
    expect(h2.rec.replicaViews()[0].message).toContain('1 of 2 shards missing');
    expect(fleet.commands.at(-1)).toMatchObject({ kind: 'stop', shardId: 'big-0001-r0' });
  });

  it('does nothing without the lock, and carries the fencing token on every command', async () => {
    const h = new Harness(new SimFleet([{ id: 'n1' }]), [small]);
    h.token = undefined;
    expect((await h.pass()).leader).toBe(false);
    expect(h.fleet.commands).toEqual([]);
    h.token = 7;
    await h.pass();
    expect(h.fleet.commands.length).toBeGreaterThan(0);
    expect(h.fleet.commands.every((c) => c.token === 7)).toBe(true);
  });

  it('a deposed leader’s commands are refused by a sink that has seen a newer token', async () => {
    const fleet = new SimFleet([{ id: 'n1' }, { id: 'n2' }]);
    const newer = new Harness(fleet, [small]);
    newer.token = 9;
    await newer.pass();
    const old = new Harness(fleet, [makeModel('other', [{ tp: 1 }], { min: 1, max: 1 })]);
    old.token = 8;
    await old.pass();
    expect(fleet.commands.filter((c) => c.token === 8)).toEqual([]);
    expect(old.rec.replicaViews()[0].state).toBe('stopping');
  });
});

describe('Reconciler: on demand', () => {
  const od = makeModel('od', [{ tp: 1 }], { min: 0, max: 1, idleTimeoutMs: 60_000 });
  const off = makeModel('off', [{ tp: 1 }], { min: 0, max: 0 });

  it('starts nothing until asked; a request starts one replica; use keeps it; idle drains it', async () => {
    const h = new Harness(new SimFleet([{ id: 'n1' }]), [od, off]);
    expect((await h.pass()).placed).toBe(0);
    h.rec.noteDemand('off', h.t);
    expect((await h.pass()).placed).toBe(0);
    h.rec.noteDemand('od', h.t);
    expect((await h.pass()).placed).toBe(1);
    h.fleet.readyAll();
    await h.pass();
    h.advance(50_000);
    h.rec.noteDemand('od', h.t);
    h.advance(50_000);
    await h.pass();
    expect(h.rec.replicaViews()[0].state).toBe('ready');
    h.advance(10_000);
    const r = await h.pass();
    expect(r.drained).toBe(1);
    expect(h.endpoints).toEqual([]);
  });
});

describe('Reconciler: the endpoint contract a placed replica publishes', () => {
  const secret = (id: string) => `secret-of-${id}`;

  it('passes the profile contract to the engine and publishes it with the KV-event sockets and the auth marker, never the secret', async () => {
    const m = makeModel('chat', [{ tp: 1, engine: 'sim', maxNumSeqs: 8, kvEvents: true, schedulingPolicy: 'priority' }], { min: 1, max: 1 });
    const h = new Harness(new SimFleet([{ id: 'n1' }]), [m], { engineSecret: secret, portRange: [30000, 30099] });
    await h.placeReady();
    const spec = h.fleet.shards.get('chat-0001-r0')!.spec!;
    expect(spec).toMatchObject({ maxNumSeqs: 8, schedulingPolicy: 'priority', apiKey: 'secret-of-chat-0001' });
    const ports = [spec.httpPort, spec.kvEventsPort!, spec.kvReplayPort!];
    expect(new Set(ports).size).toBe(3);
    expect(ports.every((p) => p >= 30000 && p <= 30099)).toBe(true);
    const addr = h.fleet.nodes.get('n1')!.mgmtAddr;
    expect(h.endpoints).toEqual([
      expect.objectContaining({
        id: 'chat-0001',
        url: `http://${addr}:${spec.httpPort}`,
        maxNumSeqs: 8,
        schedulingPolicy: 'priority',
        kvEvents: { endpoint: `tcp://${addr}:${spec.kvEventsPort}`, replayEndpoint: `tcp://${addr}:${spec.kvReplayPort}` },
        auth: 'replica-key',
      }),
    ]);
    expect(JSON.stringify(h.endpoints)).not.toContain('secret-of');
  });

  it('engine defaults: vLLM gets priority, KV events and 256 slots; llama.cpp its own slots, no KV events, fcfs; no key without an engine key', async () => {
    const m = makeModel('both', [{ tp: 1, engine: 'vllm', priority: 1 }], { min: 1, max: 1 });
    const l = makeModel('tiny', [{ tp: 1, engine: 'llamacpp' }], { min: 1, max: 1 });
    const h = new Harness(new SimFleet([{ id: 'n1' }, { id: 'n2' }]), [m, l]);
    await h.placeReady();
    const byModel = new Map(h.endpoints.map((e) => [e.model, e]));
    expect(byModel.get('both')).toMatchObject({ maxNumSeqs: 256, schedulingPolicy: 'priority', kvEvents: { endpoint: expect.stringMatching(/^tcp:\/\//) } });
    expect(byModel.get('tiny')).toMatchObject({ maxNumSeqs: 4 });
    expect(byModel.get('tiny')!.kvEvents).toBeUndefined();
    expect(byModel.get('tiny')!.schedulingPolicy).toBeUndefined();
    for (const e of h.endpoints) expect(e.auth).toBeUndefined();
    for (const s of h.fleet.shards.values()) expect(s.spec!.apiKey).toBeUndefined();
  });

  it('KV-event ports are unique per management address, across replicas and against reported shards', async () => {
    // n1 and n2 share a management address in SimFleet (same id length): one port space.
    const m = makeModel('chat', [{ tp: 1, engine: 'sim' }], { min: 2, max: 2 });
    const h = new Harness(
      new SimFleet([
        { id: 'n1', gpus: 1 },
        { id: 'n2', gpus: 1 },
      ]),
      [m],
      { portRange: [31000, 31005] },
    );
    await h.placeReady();
    const specs = [...h.fleet.shards.values()].map((s) => s.spec!);
    expect(specs).toHaveLength(2);
    expect(h.fleet.nodes.get('n1')!.mgmtAddr).toBe(h.fleet.nodes.get('n2')!.mgmtAddr);
    const all = specs.flatMap((s) => [s.httpPort, s.kvEventsPort!, s.kvReplayPort!]);
    expect(new Set(all).size).toBe(6);
    // A restarted scheduler adopts them from the fleet (specs as reported, no secret) and places a
    // third replica on a third node at the same address: its ports avoid the adopted ones.
    const h2 = new Harness(h.fleet, [makeModel('chat', [{ tp: 1, engine: 'sim' }], { min: 3, max: 3 })], {
      portRange: [31000, 31008],
      newReplicaId: (m) => `${m}-b${++h.ids}`,
    });
    h2.fleet.addNode({ id: 'n3', gpus: 1 });
    await h2.pass();
    expect(h2.rec.replicaViews().filter((r) => r.adopted)).toHaveLength(2);
    const third = [...h2.fleet.shards.values()].map((s) => s.spec!).find((s) => !specs.some((o) => o.shardId === s.shardId))!;
    expect(third).toBeDefined();
    const all3 = [...all, third.httpPort, third.kvEventsPort!, third.kvReplayPort!];
    expect(new Set(all3).size).toBe(9);
  });
});

describe('Reconciler: orphans of a node that reported thousands of shards', () => {
  /** The fleet as sink, with stops to chosen nodes held (never answered) or failing, and their concurrency measured. */
  class OrphanSink {
    stops: string[] = [];
    active = 0;
    maxActive = 0;
    hold = new Set<string>();
    fail = new Set<string>();
    private readonly held: Array<() => void> = [];
    constructor(readonly fleet: SimFleet) {}
    start = (n: string, spec: Parameters<SimFleet['start']>[1], t: number) => this.fleet.start(n, spec, t);
    drain = (n: string, id: string, why: string, ms: number, t: number) => this.fleet.drain(n, id, why, ms, t);
    stop = async (n: string, id: string, why: string, t: number): Promise<void> => {
      this.stops.push(id);
      this.active++;
      this.maxActive = Math.max(this.maxActive, this.active);
      try {
        if (this.hold.has(n)) await new Promise<void>((r) => this.held.push(r));
        if (this.fail.has(n)) throw new Error(`node ${n} did not answer`);
        await this.fleet.stop(n, id, why, t);
      } finally {
        this.active--;
      }
    };
    release() {
      for (const r of this.held.splice(0)) r();
    }
  }
  const m = makeModel('m', [{ tp: 1 }], { min: 1, max: 8 });
  const setup = () => {
    const fleet = new SimFleet([{ id: 'good' }, { id: 'bad' }]);
    for (let i = 0; i < 10_000; i++) fleet.put('bad', undefined, 'ready', `junk-${i}-r0`, `junk-${i}`);
    const sink = new OrphanSink(fleet);
    const h = new Harness(fleet, [m], { sink });
    return { fleet, sink, h };
  };
  const scaleUp = (h: Harness, min: number) => h.rec.setTarget('m', { min, max: 8 });

  it('keeps placing at its pace while 10,000 orphans sit on an unreachable node, sending them no stop, and stops them once it is back', async () => {
    const { fleet, sink, h } = setup();
    fleet.setNode('bad', { condition: 'unreachable' });
    expect((await h.pass()).placed).toBe(1);
    for (let i = 2; i <= 4; i++) {
      scaleUp(h, i);
      const r = await h.pass();
      expect(r).toMatchObject({ placed: 1, orphansStopped: 0, orphansDeferred: 10_000 });
    }
    expect(sink.stops).toEqual([]);
    // Back: every orphan is stopped, at most 16 at a time, beside the passes.
    fleet.setNode('bad', { condition: 'ready' });
    expect((await h.pass()).orphansStopped).toBe(10_000);
    await h.rec.orphanStopsSettled();
    expect(sink.stops).toHaveLength(10_000);
    expect(sink.maxActive).toBeLessThanOrEqual(16);
    expect(fleet.live('bad').filter((x) => x.shardId.startsWith('junk-'))).toEqual([]);
  });

  it('never waits on orphan stops a node does not answer: a scale-up is placed in the next pass, and no orphan is sent twice while in flight', async () => {
    const { sink, h } = setup();
    sink.hold.add('bad');
    await h.pass();
    const r = await h.pass();
    expect(r.orphansStopped).toBe(10_000);
    expect(sink.stops).toHaveLength(16);
    scaleUp(h, 2);
    expect((await h.pass()).placed).toBe(1);
    scaleUp(h, 3);
    expect(await h.pass()).toMatchObject({ placed: 1, orphansStopped: 0 });
    expect(sink.stops).toHaveLength(16);
    expect(h.rec.orphanStopsPending()).toBe(10_000);
    sink.hold.delete('bad');
    sink.release();
    await h.rec.orphanStopsSettled();
    expect(sink.stops).toHaveLength(10_000);
    expect(new Set(sink.stops).size).toBe(10_000);
  });

  it('skips a node whose orphan stops fail until its backoff passes or it reconnects, instead of retrying every orphan every pass', async () => {
    const { fleet, sink, h } = setup();
    sink.fail.add('bad');
    await h.pass();
    await h.pass();
    await h.rec.orphanStopsSettled();
    const sent = sink.stops.length;
    expect(sent).toBeLessThanOrEqual(16);
    expect(await h.pass()).toMatchObject({ orphansStopped: 0, orphansDeferred: 10_000 });
    expect(sink.stops).toHaveLength(sent);
    // After the backoff (1 s, doubling), tried again.
    h.advance(1_000);
    expect((await h.pass()).orphansStopped).toBe(10_000);
    await h.rec.orphanStopsSettled();
    expect(sink.stops.length).toBeGreaterThan(sent);
    expect(sink.stops.length).toBeLessThanOrEqual(sent + 16);
    // A reconnect ends the backoff at once.
    const before = sink.stops.length;
    sink.fail.delete('bad');
    fleet.setNode('bad', { condition: 'unreachable' });
    expect((await h.pass()).orphansDeferred).toBe(10_000);
    fleet.setNode('bad', { condition: 'ready' });
    expect((await h.pass()).orphansStopped).toBe(10_000);
    await h.rec.orphanStopsSettled();
    expect(sink.stops.length).toBe(before + 10_000);
    expect(fleet.live('bad').filter((x) => x.shardId.startsWith('junk-'))).toEqual([]);
  });
});
