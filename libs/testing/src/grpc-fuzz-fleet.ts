import { accountingProto } from '@llmgw/accounting-rpc';
import { controlServiceDefinition } from '@llmgw/control-rpc';
import { inventoryServiceDefinition } from '@llmgw/inventory-rpc';
import type { agentV1 } from '@llmgw/contracts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { callRaw, eventLoopMaxMs, type FuzzTarget, type ScenarioFinding } from './grpc-fuzz';
import { rawCall, type RawCallResult, type TestPki } from './pki';
import { spawnRole, type SpawnedRole } from './process';
import { SimAgent } from './sim-agent';
import { waitUntil } from './wait';

/**
 * Every gRPC port of llmgw as real processes over mTLS with the test PKI, for
 * the fuzzer: accounting (KeyResolver, TenancyAdmin, AuditLog), admission,
 * inventory's internal and fleet ports, and the placement-scheduler's
 * ControlService. A node agent (test-node-2) stays registered, so the node
 * verbs reach a real node.
 */
export interface FuzzFleet {
  targets: FuzzTarget[];
  roles: Record<'accounting' | 'admission' | 'inventory' | 'placement-scheduler', SpawnedRole>;
  /** The 20,000-shard heartbeat on the fleet port (and what it did to inventory). */
  bigHeartbeat(shards?: number): Promise<ScenarioFinding>;
  /** The placement-scheduler's reconcile_interval in this fleet (ms). */
  reconcileIntervalMs: number;
  /** A valid call on the placement-scheduler's ControlService, as operator. */
  control(method: string, request: unknown): Promise<RawCallResult>;
  /** The node ids inventory knows (ListNodes on its internal port). */
  nodeIds(): Promise<string[]>;
  /** One sample from a role's admin /metrics: the first line of `name` whose labels contain every `labels` pair; undefined when none. */
  metric(role: keyof FuzzFleet['roles'], name: string, labels?: Record<string, string>): Promise<number | undefined>;
  stop(): Promise<void>;
}

export interface FuzzFleetOptions {
  pki: TestPki;
  /** Accounting's database (a private Postgres database, or pglite:memory). */
  databaseUrl: string;
  /** How long each role may take to start; default 120 s. */
  startTimeoutMs?: number;
}

/** Short, so the reconciler's pace after the fuzzing is measured in seconds, not minutes. */
const RECONCILE_INTERVAL_MS = 250;
const HEALTH = { path: '/grpc.health.v1.Health/Check', requestStream: false, responseStream: false };
const hostPort = (url: string) => url.replace(/^[a-z]+:\/\//, '');
const alive = (r: SpawnedRole) => () => r.proc.exitCode === null && r.proc.signalCode === null;

export async function startFuzzFleet(o: FuzzFleetOptions): Promise<FuzzFleet> {
  const { pki } = o;
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-grpc-fuzz-'));
  const timeoutMs = o.startTimeoutMs ?? 120_000;
  const write = (name: string, cfg: unknown) => {
    const f = join(dir, name);
    writeFileSync(f, typeof cfg === 'string' ? cfg : stringify(cfg));
    return f;
  };
  const common = { listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', log_level: 'warn', tls: pki.serverTls() };
  const spawned: SpawnedRole[] = [];
  const spawn = async (role: string, cfg: string) => {
    const r = await spawnRole(role, ['--config', cfg], { timeoutMs });
    spawned.push(r);
    return r;
  };
  const agents: SimAgent[] = [];
  const stop = async () => {
    for (const a of agents) a.close();
    await Promise.all(spawned.map((r) => r.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [accounting, admission, inventory] = await Promise.all([
      spawn('accounting', write('accounting.yaml', { ...common, database_url: o.databaseUrl })),
      spawn('admission', write('admission.yaml', common)),
      spawn('inventory', write('inventory.yaml', { ...common, agent_listen: '127.0.0.1:0', agent_tls: pki.serverTls() })),
    ]);
    const catalog = write(
      'catalog.yaml',
      'models:\n  - name: fuzz-model\n    source: sim/fuzz\n    scaling: { min: 0, max: 1 }\n    profiles: [{ name: p, gpu_class: h100-80g, engine: sim }]\n',
    );
    const scheduler = await spawn(
      'placement-scheduler',
      write('placement-scheduler.yaml', {
        ...common,
        catalog,
        reconcile_interval: RECONCILE_INTERVAL_MS,
        inventory: { address: hostPort(inventory.urls.grpc), tls: pki.clientTlsFiles('placement-scheduler') },
        accounting: { address: hostPort(accounting.urls.grpc), tls: pki.clientTlsFiles('placement-scheduler') },
      }),
    );

    // A tenancy tree to aim at, so cases get past "not found" to the checks and the database behind it.
    const admin = accountingProto().TenancyAdmin.service;
    const acctAddress = hostPort(accounting.urls.grpc);
    const create = async (method: string, req: Record<string, unknown>): Promise<string> => {
      const r = await rawCall(acctAddress, pki.clientTls('operator'), admin, method, req, 30_000);
      const id = (r.response as { id?: string; key?: { id?: string } } | undefined)?.id ?? (r.response as { key?: { id?: string } } | undefined)?.key?.id;
      if (r.code !== 'OK' || !id) throw new Error(`grpc fuzz fleet: ${method} answered ${r.code} ${r.message}`);
      return id;
    };
    const org = await create('CreateOrg', { name: 'fuzz-org' });
    const team = await create('CreateTeam', { org, name: 'fuzz-team' });
    const project = await create('CreateProject', { team, name: 'fuzz-project' });
    const key = await create('CreateKey', { project, name: 'fuzz-key' });
    const future = 4_102_444_800_000; // 2100-01-01
    const scope = { 'scope.scopeType': 'org', 'scope.scope': org };
    const accountingBase: Record<string, Record<string, string | number | boolean>> = {
      GetOrg: { ref: org },
      RenameOrg: { ref: org },
      ListTeams: { org },
      CreateTeam: { org },
      GetTeam: { ref: team },
      RenameTeam: { ref: team },
      ListProjects: { team },
      CreateProject: { team },
      GetProject: { ref: project },
      UpdateProject: { ref: project },
      ListKeys: { project },
      CreateKey: { project, expiresAtMs: future },
      GetKey: { ref: key },
      UpdateKey: { ref: key, expiresAtMs: future },
      RevokeKey: { ref: key },
      ExplainKey: { ref: key },
      SetLimit: { ...scope, 'limit.scopeType': 'org', 'limit.scopeId': org, 'limit.budgetPeriod': 'month', 'limit.allowedModels': 'fuzz-model' },
      GetLimit: { scopeType: 'org', scope: org },
      QueryUsage: { ...scope, fromMs: 1, toMs: future, groupBy: 'model' },
      ListAudit: { sinceMs: 1, limit: 10, targetId: org },
      AppendAudit: { targetType: 'node', targetId: 'test-node-2', action: 'cordon', details: '{}' },
    };

    const nodeTls = (id: 'test-node-1' | 'test-node-2') => ({ ...pki.clientTls(), cert: readFileSync(pki.node(id).cert), key: readFileSync(pki.node(id).key) });
    const agentAddress = hostPort(inventory.urls.agents);
    const resident = new SimAgent({ address: agentAddress, nodeId: 'test-node-2', tls: nodeTls('test-node-2'), heartbeatIntervalMs: 1_000 });
    agents.push(resident);
    await resident.start(30_000);

    const tls = (role: string) => (role === 'node' ? nodeTls('test-node-1') : pki.clientTls(role as Parameters<TestPki['clientTls']>[0]));
    const valid = (address: string, path: string, role: string) => async () =>
      (await callRaw(address, tls(role), { path, requestStream: false, responseStream: false }, [Buffer.alloc(0)], { hangMs: 10_000 })).code;
    const metrics = (r: SpawnedRole) => `${r.urls.admin}/metrics`;
    // Node ids, models and replica ids the fuzzer's base messages name: ones that exist.
    const nodeBase = { nodeId: 'test-node-2' };
    const targets: FuzzTarget[] = [
      {
        name: 'accounting',
        address: hostPort(accounting.urls.grpc),
        services: ['llmgw.accounting.v1.KeyResolver', 'llmgw.accounting.v1.TenancyAdmin', 'llmgw.accounting.v1.AuditLog'],
        tls,
        defaultRole: 'operator',
        alive: alive(accounting),
        metricsUrl: metrics(accounting),
        base: accountingBase,
        valid: valid(hostPort(accounting.urls.grpc), '/llmgw.accounting.v1.TenancyAdmin/ListOrgs', 'operator'),
      },
      {
        name: 'admission',
        address: hostPort(admission.urls.grpc),
        services: ['llmgw.admission.v1.Admission'],
        tls,
        defaultRole: 'router',
        alive: alive(admission),
        metricsUrl: metrics(admission),
        valid: valid(hostPort(admission.urls.grpc), '/llmgw.admission.v1.Admission/Status', 'router'),
      },
      {
        name: 'inventory',
        address: hostPort(inventory.urls.grpc),
        services: ['llmgw.inventory.v1.InventoryService'],
        tls,
        defaultRole: 'placement-scheduler',
        alive: alive(inventory),
        metricsUrl: metrics(inventory),
        base: { SendShardCommand: nodeBase, FetchLogs: nodeBase, SetNodeIntent: nodeBase },
        valid: valid(hostPort(inventory.urls.grpc), '/llmgw.inventory.v1.InventoryService/ListNodes', 'placement-scheduler'),
      },
      {
        name: 'inventory-agent',
        address: agentAddress,
        services: ['llmgw.agent.v1.AgentService'],
        tls,
        defaultRole: 'node',
        alive: alive(inventory),
        metricsUrl: metrics(inventory),
        // Register as the node the certificate names, so cases get past the CN check.
        base: { Connect: { 'register.node.nodeId': 'test-node-1' } },
        valid: async () => {
          const a = new SimAgent({
            address: agentAddress,
            nodeId: 'test-node-1',
            tls: nodeTls('test-node-1'),
            reconnect: false,
            heartbeatIntervalMs: 3_600_000,
          });
          try {
            await a.start(15_000);
            return 'OK';
          } finally {
            a.close();
          }
        },
      },
      {
        name: 'placement-scheduler',
        address: hostPort(scheduler.urls.control),
        services: ['llmgw.control.v1.ControlService'],
        tls,
        defaultRole: 'operator',
        alive: alive(scheduler),
        metricsUrl: metrics(scheduler),
        base: {
          GetNode: nodeBase,
          CordonNode: nodeBase,
          UncordonNode: nodeBase,
          DrainNode: nodeBase,
          Logs: nodeBase,
          SetModelTarget: { model: 'fuzz-model' },
          ExplainPlacement: { model: 'fuzz-model' },
        },
        valid: valid(hostPort(scheduler.urls.control), '/llmgw.control.v1.ControlService/ListModels', 'operator'),
      },
    ];

    const bigHeartbeat = async (shards = 20_000): Promise<ScenarioFinding> => {
      const name = `heartbeat with ${shards} shards`;
      const agent = new SimAgent({
        address: agentAddress,
        nodeId: 'test-node-1',
        tls: nodeTls('test-node-1'),
        heartbeatIntervalMs: 3_600_000,
        reconnect: false,
      });
      agents.push(agent);
      const invAddress = hostPort(inventory.urls.grpc);
      try {
        await agent.start(30_000);
        await eventLoopMaxMs(metrics(inventory));
        const now = Date.now();
        for (let i = 0; i < shards; i++) {
          const s: agentV1.ShardStatus = {
            shardId: `fuzz-shard-${i}`,
            replicaId: `fuzz-replica-${i}`,
            state: 'SHARD_STATE_READY',
            stateSinceMs: now,
            endpoint: 'http://127.0.0.1:1',
          };
          agent.shards.set(s.shardId!, s);
        }
        agent.heartbeat();
        const h = await callRaw(agentAddress, tls('node'), HEALTH, [Buffer.alloc(0)], { hangMs: 30_000 });
        // Inventory has taken the heartbeat in (or refused it) once its node shows the shards or the stream ended.
        const def = inventoryServiceDefinition();
        let seen = 0;
        await waitUntil(
          async () => {
            const r = await rawCall(invAddress, pki.clientTls('placement-scheduler'), def, 'ListNodes', { nodeId: 'test-node-1' }, 30_000);
            const node = (r.response as { nodes?: Array<{ shards?: unknown[] }> } | undefined)?.nodes?.[0];
            seen = node?.shards?.length ?? 0;
            return seen >= shards || !agent.registered || !alive(inventory)();
          },
          'inventory to take in the big heartbeat',
          { timeoutMs: 60_000, everyMs: 100 },
        ).catch(() => undefined);
        const stallMs = await eventLoopMaxMs(metrics(inventory));
        const up = alive(inventory)();
        return {
          target: 'inventory-agent',
          name,
          alive: up,
          healthMs: Math.round(h.latencyMs),
          ...(stallMs !== undefined ? { stallMs: Math.round(stallMs) } : {}),
          ok: up && h.code === 'OK' && (stallMs ?? 0) <= 100,
          detail: `health ${h.code} in ${Math.round(h.latencyMs)} ms; inventory shows ${seen} shards for the node; agent ${agent.registered ? 'still registered' : 'stream ended'}`,
        };
      } finally {
        agent.close();
      }
    };

    const roles = { accounting, admission, inventory, 'placement-scheduler': scheduler };
    const control = (method: string, request: unknown) =>
      rawCall(hostPort(scheduler.urls.control), pki.clientTls('operator'), controlServiceDefinition() as never, method, request, 15_000);
    const nodeIds = async () => {
      const r = await rawCall(hostPort(inventory.urls.grpc), pki.clientTls('placement-scheduler'), inventoryServiceDefinition(), 'ListNodes', {}, 15_000);
      if (r.code !== 'OK') throw new Error(`grpc fuzz fleet: ListNodes answered ${r.code} ${r.message}`);
      return ((r.response as { nodes?: Array<{ info?: { nodeId?: string } }> }).nodes ?? []).map((n) => n.info?.nodeId ?? '?').sort();
    };
    const metric = async (role: keyof typeof roles, name: string, labels: Record<string, string> = {}) => {
      const text = await (await fetch(metrics(roles[role]), { signal: AbortSignal.timeout(10_000) })).text();
      for (const line of text.split('\n')) {
        const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? ([0-9.eE+-]+|NaN)$/.exec(line);
        if (!m || m[1] !== name) continue;
        if (Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`))) return Number(m[3]);
      }
      return undefined;
    };
    return { targets, roles, bigHeartbeat, reconcileIntervalMs: RECONCILE_INTERVAL_MS, control, nodeIds, metric, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
