/**
 * The stack `llmgw up` runs: an ordered list of parts, each started through
 * its app's public entry (`@llmgw/app-<name>`), the same code that runs as
 * `llmgw <role>` on its own. A part reads what earlier parts published on the
 * shared context (engine endpoints, service addresses) and publishes its own.
 * Adding a service to `up` is one part here and one line in PARTS.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ensureDemoTenant, start as startAccounting } from '@llmgw/app-accounting';
import { start as startAdmission } from '@llmgw/app-admission';
import { start as startRouter } from '@llmgw/app-router';
import { start as startSimEngine } from '@llmgw/app-sim-engine';
import type { Logger } from '@llmgw/observability';

export interface UpOptions {
  host: string;
  port: number;
  adminPort: number;
  accountingPort: number;
  admissionPort: number;
  routers: number;
  engines: number;
  model: string;
  dataDir: string;
  auth: boolean;
  admission: boolean;
  redisUrl?: string;
  databaseUrl?: string;
  decodeTps: number;
  logLevel: string;
}

/** What the parts started so far publish for the parts after them. */
export interface UpContext {
  readonly o: UpOptions;
  readonly log: Logger;
  endpoints: Array<{ name: string; url: string; model: string; engine: 'vllm' }>;
  accountingUrl?: string;
  admissionUrl?: string;
  routerUrls: string[];
  /** The demo key's secret when this start created it (it is shown once). */
  demoKey?: string;
  /** True when the demo key already existed (its secret is not kept). */
  demoKeyExisted: boolean;
}

export interface StartedPart {
  /** Lines for the "llmgw is up" banner. */
  summary: string[];
  close(): Promise<unknown>;
}

export interface Part {
  name: string;
  /**
   * Starts the part's services, handing each to `add` as soon as it runs (so
   * that a later failure still closes it). A part that options turn off adds
   * a summary saying so and a no-op close.
   */
  start(ctx: UpContext, add: (s: StartedPart) => void): Promise<void>;
}

const simEngines: Part = {
  name: 'sim-engines',
  async start(ctx, add) {
    const { o } = ctx;
    for (let i = 0; i < o.engines; i++) {
      const e = await startSimEngine({ host: o.host, port: 0, models: [o.model], decodeTps: o.decodeTps, seed: i + 1, logLevel: o.logLevel as never });
      ctx.endpoints.push({ name: `sim-${i + 1}`, url: e.url, model: o.model, engine: 'vllm' });
      add({ summary: [], close: () => e.close() });
    }
    add({ summary: [`  engines      ${o.engines} × sim-engine serving "${o.model}": ${ctx.endpoints.map((e) => e.url).join(', ')}`], close: async () => undefined });
  },
};

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
      config: { listen: `${o.host}:${o.accountingPort}`, admin_listen: `${o.host}:0`, database_url: databaseUrl, redis_url: o.redisUrl, log_level: o.logLevel as never },
    });
    const where = o.databaseUrl ? 'PostgreSQL' : resolve(o.dataDir, 'pglite');
    add({ summary: [`  accounting   ${acct.url} (gRPC); tenancy and usage in ${where}`], close: () => acct.close() });
    ctx.accountingUrl = acct.url;
    const demo = await ensureDemoTenant(acct.tenancy);
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
        endpoints: ctx.endpoints,
        ...(o.redisUrl ? { leader: { redis_url: o.redisUrl } } : {}),
      } as never,
    });
    add({ summary: [`  admission    ${adm.url} (gRPC)`], close: () => adm.close() });
    ctx.admissionUrl = adm.url;
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
          admission: ctx.admissionUrl ? { mode: 'remote', address: ctx.admissionUrl } : { mode: 'off' },
          tenancy: o.auth ? { enabled: true, accounting_address: ctx.accountingUrl, redis_url: o.redisUrl } : { enabled: false },
        } as never,
      });
      add({ summary: [`  router ${i + 1}     ${r.url}/v1  (OpenAI-compatible)   admin ${r.adminUrl}/metrics`], close: () => r.close() });
      ctx.routerUrls.push(r.url);
    }
  },
};

/** Started in this order, closed in the reverse one; the banner lists them front (routers) to back. */
export const PARTS: readonly Part[] = [simEngines, accounting, admission, routers];

export interface RunningStack {
  ctx: UpContext;
  /** Banner lines, front to back. */
  summary: string[];
  /** Closes every started part, last started first; one failing step does not stop the others. */
  close(): Promise<void>;
}

export async function startStack(o: UpOptions, log: Logger, parts: readonly Part[] = PARTS): Promise<RunningStack> {
  const ctx: UpContext = { o, log, endpoints: [], routerUrls: [], demoKeyExisted: false };
  const groups: StartedPart[][] = [];
  const close = async () => {
    for (const s of groups.splice(0).reverse().flatMap((g) => g.reverse())) {
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
  return { ctx, summary, close };
}
