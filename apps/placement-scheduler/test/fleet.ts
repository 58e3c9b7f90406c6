/**
 * A whole placement stack on real processes for the end-to-end specs:
 * inventory, placement-scheduler, router and node-agents on fake GPUs
 * (`llmgw <role>` through spawnRole), whose shards are real sim-engine
 * processes. Every process, and every engine process group an agent
 * started, is killed in close(), also after a failed test.
 */
import { ControlClient } from '@llmgw/control-rpc';
import { createEngineKeyFile, endpointKeys, type EndpointInfo, decodeEndpoint } from '@llmgw/endpoints';
import { WatchedFleet, InventoryClient, type FleetWatch } from '@llmgw/inventory-rpc';
import { isTerminalShardState, modelCatalogKeys, type controlV1 } from '@llmgw/contracts';
import { freePortRange, spawnRole, waitUntil, type SpawnedRole } from '@llmgw/testing';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

const ROOT = join(__dirname, '../../..');
const addr = (url: string) => url.replace(/^http:\/\//, '');

export interface FleetNodeSpec {
  id: string;
  /** `--fake-gpus`, e.g. `2xh100-80g,fabric=fab-a`. */
  fakeGpus: string;
}

/** A shard as the inventory watch shows it now. */
export interface LiveShard {
  nodeId: string;
  shardId: string;
  replicaId: string;
  model: string;
  state: string;
  pid: number;
  rank: number;
  nnodes: number;
  fabric: string;
}

/** How long the specs wait for one event: generous, the machine may be loaded. */
export const E2E_WAIT = { timeoutMs: 60_000, everyMs: 100 };

/** A catalog profile on h100-80g run by sim-engines that answer at once. */
export const simProfile = (name: string, extra: object = {}) => ({
  name,
  gpu_class: 'h100-80g',
  engine: 'sim',
  args: ['--decode-tps', '0', '--prefill-tps', '0'],
  startup_timeout: '60s',
  ...extra,
});

/** The models both specs run: a 2-node model (one GPU on each node) and an always-on model with two replicas. */
export const BIG_AND_CHAT = [
  { name: 'big', source: 'sim/big', scaling: { min: 1, max: 1 }, profiles: [simProfile('two-nodes', { tp: 2, nodes: 2, gpus_per_node: 1 })] },
  { name: 'chat', source: 'sim/chat', scaling: { min: 2, max: 2 }, profiles: [simProfile('one-gpu')] },
];

/** Builds the bundles the roles run from once, one at a time, instead of every spawned process racing to. */
export function buildBundles(roles: readonly string[]): void {
  const b = require(join(ROOT, 'tools/scripts/build-app.cjs')) as { freshness(r: string): { fresh: boolean }; build(r: string): void };
  for (const r of roles) if (!b.freshness(r).fresh) b.build(r);
}

export class TestFleet {
  readonly dir = mkdtempSync(join(tmpdir(), 'llmgw-place-e2e-'));
  readonly prefix = `test:place:${randomBytes(5).toString('hex')}:`;
  readonly redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
  readonly view = new WatchedFleet();
  /** Node id of every node whose agent registered, with each fabric it reports. */
  readonly fabricOf = new Map<string, string>();
  /** Every multi-node replica seen, with the fabrics its shards' nodes are on. */
  readonly multiNodeFabrics = new Map<string, Set<string>>();
  /** Every state the watch has shown for each replica's shards, in order (SHARD_STATE_ prefix dropped). */
  readonly statesOf = new Map<string, string[]>();
  inventory?: SpawnedRole;
  scheduler?: SpawnedRole;
  router?: SpawnedRole;
  admission?: SpawnedRole;
  /** The cluster engine key the scheduler and the router share (placed engines require their derived secrets). */
  readonly engineKeyFile = join(this.dir, 'engine.key');
  readonly engineKey = createEngineKeyFile(this.engineKeyFile);
  readonly agents = new Map<string, SpawnedRole>();
  private inv?: InventoryClient;
  private watch?: FleetWatch;
  private ctl?: ControlClient;
  private readonly retired: SpawnedRole[] = [];
  /** Engine process groups seen (pgid → http port), for clean-up. */
  private readonly pgids = new Map<number, number>();
  /** Engine ports: the scheduler's range, free when the fleet starts. */
  private ports: [number, number] = [0, 0];

  /** `router`: extra router config (merged over the harness's); `admission`, `scheduler` and `agent`: the same for those. */
  constructor(
    private readonly catalog: object,
    readonly nodes: readonly FleetNodeSpec[],
    readonly extra: { router?: object; admission?: object; scheduler?: object; agent?: object } = {},
  ) {}

  get catalogPath(): string {
    return join(this.dir, 'catalog.yaml');
  }

  async startInventory(): Promise<void> {
    const cfg = join(this.dir, 'inventory.yaml');
    writeFileSync(
      cfg,
      stringify({
        listen: '127.0.0.1:0',
        agent_listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        missed_heartbeats: 3,
        // Lost fails every replica on the node: long enough that an agent stalled on a loaded machine is not.
        lost_after: '5s',
        sweep_interval: '200ms',
        log_level: 'info',
      }),
    );
    this.inventory = await spawnRole('inventory', ['--config', cfg, '--instance-id', 'inv-e2e'], { timeoutMs: 60_000 });
    this.inv = new InventoryClient({ address: addr(this.inventory.urls.grpc) });
    this.watch = this.inv.watchFleet({
      onEvent: (ev) => {
        this.view.apply(ev);
        this.observe();
      },
    });
  }

  private observe(): void {
    for (const n of this.view.nodes.values()) {
      const f = n.info!.fabrics[0]?.fabric;
      if (f) this.fabricOf.set(n.info!.nodeId, f);
      for (const s of n.shards) {
        const seen = this.statesOf.get(s.replicaId) ?? [];
        const st = s.state.replace('SHARD_STATE_', '');
        if (seen.at(-1) !== st) seen.push(st);
        this.statesOf.set(s.replicaId, seen);
        if (s.pgid && s.spec?.httpPort) this.pgids.set(s.pgid, s.spec.httpPort);
        const spec = s.spec;
        if (spec && spec.nnodes > 1) {
          const set = this.multiNodeFabrics.get(spec.replicaId) ?? new Set<string>();
          set.add(this.fabricOf.get(n.info!.nodeId) ?? `no fabric (${n.info!.nodeId})`);
          this.multiNodeFabrics.set(spec.replicaId, set);
        }
      }
    }
  }

  writeCatalog(): void {
    writeFileSync(this.catalogPath, stringify(this.catalog));
  }

  async startScheduler(instanceId = 'sched-1'): Promise<SpawnedRole> {
    const cfg = join(this.dir, `scheduler-${instanceId}.yaml`);
    writeFileSync(
      cfg,
      stringify({
        catalog: this.catalogPath,
        engine_key_file: this.engineKeyFile,
        inventory: { address: addr(this.inventory!.urls.grpc) },
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        instance_id: instanceId,
        redis: { url: 'redis://127.0.0.1:6379', key_prefix: this.prefix },
        lock_ttl: '2s',
        reconcile_interval: '500ms',
        drain_timeout: '2s',
        report_grace: '30s',
        backoff: { base: '300ms', max: '2s' },
        port_range: this.ports,
        log_level: 'info',
        ...(this.admission ? { admission: { address: addr(this.admission.urls.grpc ?? this.admission.url) } } : {}),
        ...this.extra.scheduler,
      }),
    );
    this.scheduler = await spawnRole('placement-scheduler', ['--config', cfg], { timeoutMs: 60_000 });
    this.ctl?.close();
    this.ctl = new ControlClient({ address: addr(this.scheduler.urls.control) });
    return this.scheduler;
  }

  async startRouter(): Promise<SpawnedRole> {
    const cfg = join(this.dir, 'router.yaml');
    writeFileSync(
      cfg,
      stringify({
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        log_level: 'warn',
        engine_key_file: this.engineKeyFile,
        endpoint_source: { kind: 'redis', redis_url: 'redis://127.0.0.1:6379', key_prefix: this.prefix, on_demand_hold: '200ms' },
        ...(this.admission ? { admission: { mode: 'remote', address: addr(this.admission.urls.grpc ?? this.admission.url) } } : {}),
        ...this.extra.router,
      }),
    );
    this.router = await spawnRole('router', ['--config', cfg], { timeoutMs: 60_000, keepOutput: true });
    return this.router;
  }

  /** An admission service reading the endpoints the scheduler publishes (as routers do). */
  async startAdmission(): Promise<SpawnedRole> {
    const cfg = join(this.dir, 'admission.yaml');
    writeFileSync(
      cfg,
      stringify({
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        log_level: 'warn',
        scrape_interval: '200ms',
        endpoint_source: { kind: 'redis', redis_url: 'redis://127.0.0.1:6379', key_prefix: this.prefix },
        ...this.extra.admission,
      }),
    );
    this.admission = await spawnRole('admission', ['--config', cfg], { timeoutMs: 60_000 });
    return this.admission;
  }

  /** The endpoint records the scheduler published in Redis, as routers read them. */
  async published(): Promise<EndpointInfo[]> {
    const raw = await this.redis.hgetall(endpointKeys(this.prefix).hash);
    return Object.entries(raw)
      .map(([id, json]) => decodeEndpoint(id, json))
      .filter((e): e is EndpointInfo => !!e);
  }

  workDir(id: string): string {
    return join(this.dir, `work-${id}`);
  }

  async startAgent(id: string): Promise<SpawnedRole> {
    const node = this.nodes.find((n) => n.id === id)!;
    const cfg = join(this.dir, `agent-${id}.yaml`);
    writeFileSync(
      cfg,
      stringify({
        node_id: id,
        server: addr(this.inventory!.urls.agents),
        // Engines bind the management address (engine_bind_host's default).
        mgmt_addr: '127.0.0.1',
        fake_gpus: node.fakeGpus,
        work_dir: this.workDir(id),
        engines: { sim: {} },
        port_range: this.ports,
        heartbeat_interval: '200ms',
        stats_interval: '500ms',
        health_interval: '100ms',
        stop_grace: '2s',
        drain_timeout: '2s',
        startup_timeout: '60s',
        admin_listen: '127.0.0.1:0',
        log_level: 'info',
        ...this.extra.agent,
      }),
    );
    const a = await spawnRole('node-agent', ['run', '--config', cfg], { timeoutMs: 60_000 });
    this.agents.set(id, a);
    return a;
  }

  /** The whole stack: inventory, the agents, the scheduler, then (unless `router: false`) the router once the catalog view is in Redis. */
  async start(o: { router?: boolean; admission?: boolean } = {}): Promise<void> {
    this.ports = await freePortRange(100);
    this.writeCatalog();
    await this.startInventory();
    for (const n of this.nodes) await this.startAgent(n.id);
    await waitUntil(() => this.nodes.every((n) => this.view.nodes.get(n.id)?.connectivity === 'CONNECTIVITY_CONNECTED'), 'every agent registered', {
      timeoutMs: 30_000,
      everyMs: 50,
    });
    // With admission: started first, so the scheduler's autoscaler reads it and the router queues in it.
    if (o.admission) await this.startAdmission();
    await this.startScheduler();
    await waitUntil(async () => (await this.redis.hlen(modelCatalogKeys(this.prefix).catalog)) > 0, 'the catalog view in Redis', {
      timeoutMs: 30_000,
      everyMs: 100,
    });
    if (o.router !== false) await this.startRouter();
  }

  /** Live (non-terminal) shards the watch shows. */
  shards(): LiveShard[] {
    const out: LiveShard[] = [];
    for (const n of this.view.nodes.values()) {
      for (const s of n.shards) {
        if (isTerminalShardState(s.state)) continue;
        out.push({
          nodeId: n.info!.nodeId,
          shardId: s.shardId,
          replicaId: s.replicaId,
          model: s.spec?.model ?? '',
          state: s.state,
          pid: s.pid,
          rank: s.spec?.rank ?? 0,
          nnodes: s.spec?.nnodes ?? 1,
          fabric: s.spec?.fabric ?? '',
        });
      }
    }
    return out.sort((a, b) => (a.shardId < b.shardId ? -1 : 1));
  }

  async replicas(model?: string): Promise<controlV1.Replica__Output[]> {
    const r = await this.ctl!.unary<controlV1.ListReplicasResponse__Output>('ListReplicas', { model: model ?? '' });
    return r.replicas;
  }

  /** READY replicas of `model` (published to the routers). */
  async ready(model: string): Promise<controlV1.Replica__Output[]> {
    return (await this.replicas(model)).filter((r) => r.state === 'REPLICA_STATE_READY');
  }

  explain(model: string): Promise<controlV1.ExplainPlacementResponse__Output> {
    return this.ctl!.unary('ExplainPlacement', { model });
  }

  /** waitUntil (E2E_WAIT), failing with what the scheduler and the processes say. */
  wait(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
    return waitUntil(cond, what, E2E_WAIT).catch(async (e) => {
      const reps = await this.replicas().catch(() => []);
      throw new Error(
        `${(e as Error).message}\nreplicas: ${JSON.stringify(reps.map((r) => [r.model, r.replicaId, r.state, r.message, r.shards.map((x) => [x.nodeId, x.state, x.message])]))}\nshards: ${JSON.stringify(this.shards())}\n${this.logs(40)}`,
      );
    });
  }

  /** `ctl model target`: min and max replicas of one model. */
  target(model: string, n: number): Promise<controlV1.SetModelTargetResponse__Output> {
    return this.ctl!.unary('SetModelTarget', { model, minReplicas: n, maxReplicas: n, clear: false });
  }

  drain(nodeId: string): Promise<controlV1.NodeAdminResponse__Output> {
    return this.ctl!.unary('DrainNode', { nodeId, reason: 'e2e drain', replicaDrainTimeoutMs: 0 });
  }

  /** The scheduler's admin /metrics: one metric by name, summed over its labels; throws when it is not exported. */
  async schedulerMetric(name: string): Promise<number> {
    const text = await (await fetch(`${this.scheduler!.urls.admin}/metrics`)).text();
    const samples = text.split('\n').filter((line) => line.split(/[{ ]/)[0] === name);
    if (!samples.length) throw new Error(`the scheduler exports no ${name}`);
    return samples.reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  }

  /** What a machine crash does: SIGKILL the agent and every engine process group it started. */
  async crashNode(id: string): Promise<void> {
    const a = this.agents.get(id)!;
    const groups = this.engineGroupsOf(id);
    await a.stop('SIGKILL');
    for (const g of groups) killGroup(g);
    this.retired.push(a);
    this.agents.delete(id);
  }

  /** Engine process groups recorded in a node's state directory (the agent's adoption records). */
  engineGroupsOf(id: string): number[] {
    const dir = join(this.workDir(id), 'shards');
    if (!existsSync(dir)) return [];
    const out: number[] = [];
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.json')) continue;
      try {
        const rec = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { pgid?: number };
        if (rec.pgid) out.push(rec.pgid);
      } catch {
        // a record being rewritten; the watch has its pgid too
      }
    }
    return out;
  }

  /** POST /v1/chat/completions through the router. */
  chat(model: string, signal?: AbortSignal): Promise<Response> {
    return fetch(`${this.router!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 }),
      signal,
    });
  }

  /** Whether the router answers `model` now: a replica READY at the scheduler reaches the router's view a moment later. */
  async routed(model: string): Promise<boolean> {
    const res = await this.chat(model, AbortSignal.timeout(10_000));
    await res.text();
    return res.status === 200;
  }

  /** Output of every process, for a failure message. */
  logs(lines = 30): string {
    const all: Array<[string, SpawnedRole | undefined]> = [
      ['inventory', this.inventory],
      ['scheduler', this.scheduler],
      ['router', this.router],
      ['admission', this.admission],
      ...[...this.agents].map(([k, v]) => [k, v] as [string, SpawnedRole]),
    ];
    return all
      .filter(([, p]) => p)
      .map(([n, p]) => `--- ${n}\n${p!.output().slice(-lines).join('\n')}`)
      .join('\n');
  }

  async close(): Promise<void> {
    this.watch?.close();
    this.inv?.close();
    this.ctl?.close();
    const procs = [this.router, this.admission, this.scheduler, ...this.agents.values(), this.inventory, ...this.retired].filter((p): p is SpawnedRole => !!p);
    await Promise.all(procs.map((p) => p.stop('SIGKILL').catch(() => undefined)));
    for (const n of this.nodes) for (const g of this.engineGroupsOf(n.id)) this.pgids.set(g, this.pgids.get(g) ?? 0);
    for (const [g, port] of this.pgids) killGroup(g, port);
    const keys = await this.redis.keys(`${this.prefix}*`).catch(() => [] as string[]);
    if (keys.length) await this.redis.del(...keys).catch(() => undefined);
    this.redis.disconnect();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** SIGKILL to an engine's process group, only while its leader is still one of our sim-engines (a pid can be reused). */
function killGroup(pgid: number, port = 0): void {
  let cmd = '';
  try {
    cmd = readFileSync(`/proc/${pgid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return;
  }
  if (!cmd.includes('sim-engine') || (port && !cmd.includes(`--port ${port}`))) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

/** A steady client load through the router: `workers` loops, each one request after the other. */
export class Load {
  readonly results: Array<{ start: number; end: number; status: number; error?: string }> = [];
  private running = true;
  private readonly loops: Promise<void>[] = [];

  constructor(
    private readonly fleet: TestFleet,
    private readonly model: string,
    workers = 2,
    private readonly gapMs = 20,
  ) {
    for (let i = 0; i < workers; i++) this.loops.push(this.loop());
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const start = Date.now();
      try {
        const res = await this.fleet.chat(this.model, AbortSignal.timeout(20_000));
        const body = await res.text();
        this.results.push({ start, end: Date.now(), status: res.status, ...(res.status !== 200 ? { error: body.slice(0, 300) } : {}) });
      } catch (e) {
        this.results.push({ start, end: Date.now(), status: 0, error: (e as Error).message });
      }
      await new Promise((r) => setTimeout(r, this.gapMs));
    }
  }

  /** Requests completed since `t` (their start). */
  since(t: number) {
    return this.results.filter((r) => r.start >= t);
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}
