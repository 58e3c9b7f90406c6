/**
 * The stack `llmgw up` runs: an ordered list of parts, each started through
 * its app's public entry (`@llmgw/app-<name>`), the same code that runs as
 * `llmgw <role>` on its own. A part reads what earlier parts published on the
 * shared context (engine endpoints, service addresses) and publishes its own.
 * Adding a service to `up` is one part here and one line in PARTS.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { ensureDemoTenant, ensureFirstAdmin, start as startAccounting } from '@llmgw/app-accounting';
import { start as startAdmission } from '@llmgw/app-admission';
import { start as startInventory } from '@llmgw/app-inventory';
import { start as startPortal } from '@llmgw/app-portal';
import { nodeAgentService } from '@llmgw/app-node-agent';
import { start as startScheduler } from '@llmgw/app-placement-scheduler';
import { start as startRouter } from '@llmgw/app-router';
import { start as startSimEngine } from '@llmgw/app-sim-engine';
import { createEngineKeyFile } from '@llmgw/endpoints';
import type { Logger } from '@llmgw/observability';
import { startService } from '@llmgw/service';
import { dropInProcessState } from '@llmgw/stores';
import { writeCtlConfig } from './ctl-config';
import type { Part, StartedPart, UpContext, UpOptions } from './stack-part';
import { ensureUpPki } from './tls';

export type { Part, StartedPart, UpContext, UpOptions } from './stack-part';

/** The local CA and a certificate per role, made on the first start and reused after. */
const pki: Part = {
  name: 'tls',
  async start(ctx, add) {
    ctx.tls = await ensureUpPki(
      ctx.o.dataDir,
      ctx.o.host,
      FLEET_NODES.map((n) => n.id),
    );
    const made = ctx.tls.issued.length ? `${ctx.tls.issued.length} issued now` : 'reused';
    add({
      summary: [
        `  mTLS         every gRPC link; CA and role certificates in ${ctx.tls.dir} (${made})`,
        `  llmgw ctl    configured by ${resolve(ctx.o.dataDir, 'ctl.yaml')}`,
      ],
      close: async () => undefined,
    });
  },
};

/** Writes <data-dir>/ctl.yaml: `llmgw ctl` then reaches the admin APIs from here with no flags. */
const simEngines: Part = {
  name: 'sim-engines',
  async start(ctx, add) {
    const { o } = ctx;
    if (!o.static) {
      const replicas = ctx.demoReplicas?.length ? `: ${ctx.demoReplicas.join(', ')}` : '';
      return add({ summary: [`  engines      sim-engines the placement-scheduler placed on the fake-GPU nodes${replicas}`], close: async () => undefined });
    }
    for (let i = 0; i < o.engines; i++) {
      const maxNumSeqs = 256;
      const e = await startSimEngine({
        host: o.host,
        port: 0,
        models: [o.model],
        decodeTps: o.decodeTps,
        seed: i + 1,
        logLevel: o.logLevel as never,
        maxNumSeqs,
      });
      // Declared like a production endpoint (the engine's --max-num-seqs): admission knows its capacity from the start.
      ctx.endpoints.push({ name: `sim-${i + 1}`, url: e.url, model: o.model, engine: 'vllm', max_num_seqs: maxNumSeqs });
      add({ summary: [], close: () => e.close() });
    }
    add({
      summary: [`  engines      ${o.engines} × sim-engine serving "${o.model}": ${ctx.endpoints.map((e) => e.url).join(', ')}`],
      close: async () => undefined,
    });
  },
};

/**
 * The key prefix of one data directory's control plane (two `up`s on one Redis do not share a leader lock
 * or endpoints); without Redis, the name of the in-process state its services share.
 */
export function fleetKeyPrefix(dataDir: string): string {
  return `llmgw:up:${createHash('sha256').update(resolve(dataDir, 'fleet')).digest('hex').slice(0, 8)}:`;
}

/** The two simulated nodes of the control plane: one per fabric, so a 2-node model would have to stay in one. */
export const FLEET_NODES = [
  { id: 'up-gpu-a', fakeGpus: '4xh100-80g,fabric=fab-a' },
  { id: 'up-gpu-b', fakeGpus: '4xh100-80g,fabric=fab-b' },
] as const;

/** The demo catalog: the demo model always on (`engines` replicas), `<model>-lazy` on demand. */
export function demoCatalog(o: Pick<UpOptions, 'model' | 'decodeTps'> & { engines?: number }): object {
  const n = o.engines ?? 1;
  // sim's contract defaults: KV events on, scheduling_policy priority; its slots declared here.
  // The llama3 tokenizer, so the block hashes of its KV events are the ones the routers' tier-2 index computes.
  const profile = {
    name: 'sim-1gpu',
    gpu_class: 'h100-80g',
    engine: 'sim',
    max_num_seqs: 256,
    args: ['--decode-tps', String(o.decodeTps), '--tokenizer', 'llama3'],
    startup_timeout: '2m',
  };
  return {
    models: [
      { name: o.model, source: `sim/${o.model}`, scaling: { min: n, max: n }, profiles: [profile] },
      { name: `${o.model}-lazy`, source: `sim/${o.model}-lazy`, scaling: { min: 0, max: 1, idle_timeout: '5m' }, profiles: [profile] },
    ],
  };
}

/**
 * The control plane (the default; not with --static): inventory, two
 * node-agents on fake GPUs (one per fabric) whose shards are sim-engine
 * processes, and the placement-scheduler with the demo catalog. The
 * scheduler publishes the endpoints of the replicas it placed, the catalog
 * view and reads demand through Redis with --redis-url (under a prefix of
 * this data directory's own), else through the in-process state of that
 * name, which the routers and admission of this process read too
 * (libs/stores `inProcessState`). Engines stop with `up`.
 */
const fleet: Part = {
  name: 'control plane',
  async start(ctx, add) {
    const { o } = ctx;
    if (o.static) return;
    const dir = resolve(o.dataDir, 'fleet');
    mkdirSync(dir, { recursive: true });
    const prefix = fleetKeyPrefix(o.dataDir);
    const level = o.logLevel as never;
    // Placed engines require their replica's secret, derived from this key (created once, 0600).
    ctx.engineKeyFile = resolve(o.dataDir, 'engine.key');
    createEngineKeyFile(ctx.engineKeyFile);
    const inv = await startInventory({
      config: {
        listen: `${o.host}:0`,
        agent_listen: `${o.host}:0`,
        admin_listen: `${o.host}:0`,
        lost_after: '15s',
        log_level: level,
        tls: ctx.tls?.server('inventory'),
        agent_tls: ctx.tls?.server('inventory'),
      },
    });
    add({ summary: [`  inventory    ${inv.address} (gRPC), agents dial ${inv.agentAddress}`], close: () => inv.close() });
    const mgmt = loopbackOf(o.host);
    // Both agents at once: each checks its engine before it registers.
    await Promise.all(
      FLEET_NODES.map(async (n) => {
        const agent = await startService(nodeAgentService(), {
          configSource: `llmgw up (${n.id})`,
          config: {
            node_id: n.id,
            server: inv.agentAddress,
            mgmt_addr: mgmt,
            fake_gpus: n.fakeGpus,
            work_dir: join(dir, n.id),
            engines: { sim: {} },
            port_range: o.enginePorts ?? [20000, 20999],
            stop_engines_on_exit: true,
            stop_grace: '2s',
            heartbeat_interval: '2s',
            log_level: level,
            // A sim-engine answers within a few hundred ms of its launch: probing it every 250 ms (not 1 s)
            // gets a replica READY, and `up` to its banner, that much sooner.
            health_interval: '250ms',
            tls: ctx.tls?.node(n.id),
          },
        });
        add({ summary: [`  node-agent   ${n.id}: ${n.fakeGpus} (fake GPUs; shards run as sim-engines)`], close: () => agent.close() });
      }),
    );
    const catalog = join(dir, 'catalog.yaml');
    writeFileSync(catalog, stringify(demoCatalog(o)));
    const state = o.redisUrl ? { redis: { url: o.redisUrl, key_prefix: prefix } } : { memory: { key_prefix: prefix } };
    const sched = await startScheduler({
      config: {
        catalog,
        engine_key_file: ctx.engineKeyFile,
        inventory: { address: inv.address, tls: ctx.tls?.client('placement-scheduler') },
        listen: `${o.host}:${o.controlPort ?? 7074}`,
        admin_listen: `${o.host}:0`,
        tls: ctx.tls?.server('placement-scheduler'),
        ...state,
        ...(ctx.accountingUrl ? { accounting: { address: ctx.accountingUrl, tls: ctx.tls?.client('placement-scheduler') } } : {}),
        reconcile_interval: '2s',
        port_range: o.enginePorts ?? [20000, 20999],
        log_level: level,
      },
    });
    const where = o.redisUrl ? 'Redis' : 'in process';
    add({
      summary: [`  placement    ${sched.urls.control.replace(/^http:\/\//, '')} (ControlService, mTLS); catalog ${catalog}; shared state ${where}`],
      close: () => sched.close(),
    });
    if (!o.redisUrl) add({ summary: [], close: async () => dropInProcessState(prefix) });
    ctx.controlUrl = sched.urls.control;
    ctx.attachAdmission = (address) => sched.service.attachAdmission(address, ctx.tls?.client('placement-scheduler'));
    ctx.endpointSource = o.redisUrl ? { kind: 'redis', redis_url: o.redisUrl, key_prefix: prefix } : { kind: 'memory', key_prefix: prefix };
    // The always-on model serves before the banner says "up" (or up says why not). Each pass of the
    // reconciler and each shard report is an event here; the 50 ms look costs nothing next to them.
    const want = Math.max(1, o.engines);
    const deadline = Date.now() + 120_000;
    const ready = () => sched.service.scheduler.reconciler.replicaViews().filter((r) => r.model === o.model && r.state === 'ready');
    while (ready().length < want) {
      if (Date.now() > deadline)
        throw new Error(`the placement-scheduler did not get ${o.model} ready within 120 s; see llmgw ctl explain-placement ${o.model}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    ctx.demoReplicas = ready().map((r) => `${r.id} on ${[...new Set(r.shards.map((s) => s.nodeId))].join('+')}`);
  },
};

/** The address a client on this machine reaches a listener on `host` by. */
function loopbackOf(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}

const accounting: Part = {
  name: 'accounting',
  async start(ctx, add) {
    const { o } = ctx;
    if (!o.auth) return add({ summary: ['  accounting   off (no auth)'], close: async () => undefined });
    let databaseUrl = o.databaseUrl;
    if (!databaseUrl) {
      const dir = resolve(o.dataDir, 'pglite');
      mkdirSync(dir, { recursive: true });
      databaseUrl = `pglite:${dir}`;
    }
    const acct = await startAccounting({
      config: {
        listen: `${o.host}:${o.accountingPort}`,
        admin_listen: `${o.host}:0`,
        database_url: databaseUrl,
        redis_url: o.redisUrl,
        log_level: o.logLevel as never,
        tls: ctx.tls?.server('accounting'),
      },
    });
    const where = o.databaseUrl ? 'PostgreSQL' : resolve(o.dataDir, 'pglite');
    add({ summary: [`  accounting   ${acct.url} (gRPC); tenancy and usage in ${where}`], close: () => acct.close() });
    ctx.accountingUrl = acct.url;
    const demo = await ensureDemoTenant(acct.tenancy);
    ctx.firstAdmin = await ensureFirstAdmin(acct.accounts, 'admin@llmgw.local', demo.projectId);
    ctx.demoKey = demo.secret;
    ctx.demoKeyExisted = !demo.secret;
  },
};

const admission: Part = {
  name: 'admission',
  async start(ctx, add) {
    const { o } = ctx;
    if (!o.admission) return add({ summary: ['  admission    off'], close: async () => undefined });
    const adm = await startAdmission({
      config: {
        listen: `${o.host}:${o.admissionPort}`,
        admin_listen: `${o.host}:0`,
        log_level: o.logLevel as never,
        tls: ctx.tls?.server('admission'),
        endpoints: ctx.endpoints,
        ...(ctx.endpointSource ? { endpoint_source: ctx.endpointSource } : {}),
        ...(o.redisUrl ? { leader: { redis_url: o.redisUrl } } : {}),
      } as never,
    });
    add({ summary: [`  admission    ${adm.url} (gRPC)`], close: () => adm.close() });
    ctx.metricsUrls.push(`${adm.adminUrl}/metrics`);
    ctx.admissionUrl = adm.url;
    ctx.attachAdmission?.(adm.url.replace(/^[a-z]+:\/\//, ''));
  },
};

const routers: Part = {
  name: 'routers',
  async start(ctx, add) {
    const { o } = ctx;
    for (let i = 0; i < o.routers; i++) {
      const r = await startRouter({
        config: {
          listen: `${o.host}:${o.port === 0 ? 0 : o.port + i}`,
          admin_listen: `${o.host}:${o.adminPort === 0 ? 0 : o.adminPort + i}`,
          log_level: o.logLevel as never,
          endpoints: ctx.endpoints,
          ...(ctx.endpointSource ? { endpoint_source: ctx.endpointSource } : {}),
          ...(ctx.engineKeyFile ? { engine_key_file: ctx.engineKeyFile } : {}),
          // Placed replicas publish KV events: the routers follow them (prefix tier 2) beside the approximate tree.
          ...(ctx.controlUrl ? { prefix: { kv_events: { enabled: true } } } : {}),
          admission: ctx.admissionUrl ? { mode: 'remote', address: ctx.admissionUrl, tls: ctx.tls?.client('router') } : { mode: 'off' },
          tenancy: o.auth
            ? { enabled: true, accounting_address: ctx.accountingUrl, accounting_tls: ctx.tls?.client('router'), redis_url: o.redisUrl }
            : { enabled: false },
        } as never,
      });
      add({ summary: [`  router ${i + 1}     ${r.url}/v1  (OpenAI-compatible)   admin ${r.adminUrl}/metrics`], close: () => r.close() });
      ctx.routerUrls.push(r.url);
      ctx.metricsUrls.push(`${r.adminUrl}/metrics`);
    }
  },
};

/**
 * The portal (docs/portal.md), with auth only: people sign in, chat through
 * the first router and operators see the fleet. The first admin is made on
 * the first start and their password printed once in the banner.
 */
const portal: Part = {
  name: 'portal',
  async start(ctx, add) {
    const { o } = ctx;
    if (!o.auth || !ctx.accountingUrl) return add({ summary: ['  portal       off (no auth)'], close: async () => undefined });
    const port = o.portalPort ?? (o.port === 0 ? 0 : 8090);
    const p = await startPortal({
      config: {
        listen: `${o.host}:${port}`,
        admin_listen: `${o.host}:0`,
        log_level: o.logLevel as never,
        router_url: ctx.routerUrls[0]!,
        metrics_urls: ctx.metricsUrls,
        accounting: { address: hostPort(ctx.accountingUrl), tls: ctx.tls?.client('portal') },
        ...(ctx.controlUrl ? { control: { address: hostPort(ctx.controlUrl), tls: ctx.tls?.client('portal') } } : {}),
      },
    });
    ctx.portalUrl = p.url;
    add({ summary: [`  portal       ${p.url}  (sign in, /chat, /admin)`], close: () => p.close() });
  },
};

/** Started in this order, closed in the reverse one; the banner lists them front (routers) to back. */
// The engines line comes after the control plane (it names the placed replicas).
// The control plane starts after accounting: an embedded PGlite start blocks the event loop for seconds,
// which would cost the in-process agents their heartbeats and the scheduler its lock.
export const PARTS: readonly Part[] = [pki, accounting, fleet, simEngines, admission, routers, portal];

export interface RunningStack {
  ctx: UpContext;
  /** Banner lines, front to back. */
  summary: string[];
  /** Closes every started part, last started first; one failing step does not stop the others. */
  close(): Promise<void>;
}

export async function startStack(o: UpOptions, log: Logger, parts: readonly Part[] = PARTS): Promise<RunningStack> {
  const ctx: UpContext = { o, log, endpoints: [], routerUrls: [], metricsUrls: [], demoKeyExisted: false };
  const groups: StartedPart[][] = [];
  const close = async () => {
    for (const s of groups
      .splice(0)
      .reverse()
      .flatMap((g) => g.reverse())) {
      await s.close().catch((e) => log.warn({ err: String(e) }, 'close step failed'));
    }
  };
  for (const part of parts) {
    const group: StartedPart[] = [];
    groups.push(group);
    try {
      await part.start(ctx, (s) => group.push(s));
    } catch (e) {
      await close();
      throw new Error(`${part.name}: ${(e as Error).message}`, { cause: e });
    }
  }
  const summary = groups
    .slice()
    .reverse()
    .flatMap((g) => g.flatMap((s) => s.summary));
  try {
    ctx.ctlConfig = writeCtlConfig(
      o.dataDir,
      {
        accounting: ctx.accountingUrl ? hostPort(ctx.accountingUrl) : undefined,
        control: ctx.controlUrl ? hostPort(ctx.controlUrl) : undefined,
      },
      ctx.tls,
    );
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'could not write ctl.yaml; llmgw ctl needs --accounting / --control');
  }
  return { ctx, summary, close };
}

/** "host:port" of a listener URL, as `llmgw ctl` dials it (a wildcard host becomes loopback). */
function hostPort(url: string): string {
  const u = new URL(url.includes('://') ? url : `http://${url}`);
  const host = loopbackOf(u.hostname.replace(/^\[|\]$/g, ''));
  return host.includes(':') ? `[${host}]:${u.port}` : `${host}:${u.port}`;
}
