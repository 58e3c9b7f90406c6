import {
  CAPACITY_CLASSES,
  FACILITY_LEVELS,
  engineContract,
  validateProfileShape,
  type CapacityClass,
  type FacilityLevel,
  type Model,
  type Profile,
  type ProjectRef,
  type QuotaRule,
} from '@llmgw/placement';
import { z } from 'zod';
import {
  adapterLaunch,
  adapterSchema,
  providerSchema,
  weightsMirror,
  weightsSchema,
  type AdapterConfig,
  type ProviderConfig,
  type WeightsConfig,
} from './catalog-sources';
import { ConfigError, deepFreeze, duration, readConfigFile } from './load';
import { ENGINE_KINDS } from '@llmgw/contracts';

/**
 * The model catalog (docs/placement.md#the-catalog): the source of truth for what
 * the placement-scheduler runs. A YAML file with one key, `models`. Reference:
 * docs/placement.md; commented example: deploy/examples/catalog.yaml.
 */

const NAME = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const modelName = () => z.string().regex(NAME, 'must be 1–128 characters of letters, digits and . _ : / - (starting with a letter or digit)');

const profileSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1–64 characters of letters, digits and . _ -'),
    /** The GPU class every shard needs ("h100-80g"), as agents derive it (docs/node-agent.md#discovery). */
    gpu_class: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'must be a GPU class such as h100-80g'),
    engine: z.enum(ENGINE_KINDS),
    tp: z.number().int().min(1).max(512).default(1),
    pp: z.number().int().min(1).max(64).default(1),
    /** Default: tp × pp / nodes. */
    gpus_per_node: z.number().int().min(1).max(64).optional(),
    /** > 1: every node in one fabric with ACTIVE HCAs. */
    nodes: z.number().int().min(1).max(64).default(1),
    /** Higher is tried first. */
    priority: z.number().int().default(0),
    /** Capacity weight for the router. */
    weight: z.number().int().min(1).default(100),
    args: z.array(z.string()).default([]),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment names are [A-Za-z_][A-Za-z0-9_]*'), z.string()).default({}),
    startup_timeout: duration().default(20 * 60_000),
    /** vLLM only: "mp" or "ray". */
    launch_mode: z.enum(['mp', 'ray']).optional(),
    /**
     * The engine's batch slots (vLLM --max-num-seqs, SGLang --max-running-requests, llama.cpp
     * --parallel): passed to the engine and published, so admission's credits and the router's
     * upstream pool match it. Default per engine (docs/placement.md).
     */
    max_num_seqs: z.number().int().min(1).max(65_536).optional(),
    /** Publish KV-cache events for prefix routing tier 2 (vLLM/SGLang --kv-events-config). Default: on where the engine can. */
    kv_events: z.boolean().optional(),
    /** `priority`: the engine orders its queue by the request's band. Default: priority where the engine can. */
    scheduling_policy: z.enum(['fcfs', 'priority']).optional(),
  })
  .strict();

const scalingSchema = z
  .object({
    min: z.number().int().min(0).default(0),
    /** Default: min (so `{min: 2}` is exactly two, and `{min: 0}` is off). */
    max: z.number().int().min(0).optional(),
    /** Replicas above min stop after this long without requests; 0 = never. */
    idle_timeout: duration().default(15 * 60_000),
    target_waiting_per_replica: z.number().min(0).default(0),
  })
  .strict();

const modelSchema = z
  .object({
    name: modelName(),
    aliases: z.array(modelName()).default([]),
    /** Weights path or hub id, passed to the engine. Optional with `weights` or `provider`. */
    source: z.string().min(1).optional(),
    /** Where the agent fetches the weights from (docs/models.md, "Sources"). */
    weights: weightsSchema.optional(),
    /** LoRA adapters served on this base model (docs/models.md, "Adapters"). */
    adapters: z.array(adapterSchema).default([]),
    /** Adapters one replica keeps in GPU slots at once (vLLM --max-loras, SGLang --max-loras-per-batch); the `lora` scorer respects it. */
    max_loaded_adapters: z.number().int().min(1).max(256).optional(),
    /** Served by an OpenAI-compatible API elsewhere (docs/models.md, "Providers"). */
    provider: providerSchema.optional(),
    /** Absent: off (configured, never started). min 0 max 0: off. min 0 max ≥ 1: on demand. */
    scaling: scalingSchema.optional(),
    fallbacks: z.array(modelName()).default([]),
    routing_profile: z.string().min(1).optional(),
    /** The SLO `ctl bench` measures capacity against. */
    slo: z.object({ ttft_p99: duration().optional(), tpot_p99: duration().optional() }).strict().optional(),
    /** At least one, unless the model is served only by its `provider`. */
    profiles: z.array(profileSchema).default([]),
    /** Who preempts whom when the cluster is full (docs/placement.md "Capacity classes"). */
    capacity_class: z.enum(CAPACITY_CLASSES as [CapacityClass, ...CapacityClass[]]).default('standard'),
    /** The project (under `projects`) whose quota the model's GPUs count against. */
    project: z.string().min(1).optional(),
    /** Every node of one replica shares this facility label (a hard constraint). */
    keep_within: z.enum(FACILITY_LEVELS as [FacilityLevel, ...FacilityLevel[]]).optional(),
  })
  .strict();

const scopeName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1–64 characters of letters, digits and . _ -');

/** A project, and the team and organisation whose quotas it also counts against. */
const projectSchema = z.object({ name: scopeName, team: scopeName.optional(), org: scopeName.optional() }).strict();

/** GPUs of one organisation, team or project (exactly one of the three), optionally of one capacity class. */
const quotaSchema = z
  .object({
    org: scopeName.optional(),
    team: scopeName.optional(),
    project: scopeName.optional(),
    capacity_class: z.enum(CAPACITY_CLASSES as [CapacityClass, ...CapacityClass[]]).optional(),
    /** GPUs always available to it; its placements preempt borrowers to get them back. */
    guarantee_gpus: z.number().int().min(0).default(0),
    /** GPUs never exceeded; absent = no limit. */
    limit_gpus: z.number().int().min(0).optional(),
  })
  .strict()
  .refine((q) => [q.org, q.team, q.project].filter((x) => x !== undefined).length === 1, 'set exactly one of org, team, project')
  .refine((q) => q.limit_gpus === undefined || q.limit_gpus >= q.guarantee_gpus, 'limit_gpus must be at least guarantee_gpus');

export const catalogSchema = z
  .object({
    models: z.array(modelSchema).default([]),
    projects: z.array(projectSchema).default([]),
    quotas: z.array(quotaSchema).default([]),
  })
  .strict();
export type CatalogInput = z.input<typeof catalogSchema>;

/** A validated catalog: models in file order, plus name/alias lookup. */
export interface Catalog {
  readonly models: readonly Model[];
  /** Model by name or alias. */
  readonly byName: ReadonlyMap<string, Model>;
  /** The SLO per model name, when given. */
  readonly slo: ReadonlyMap<string, { ttftP99Ms?: number; tpotP99Ms?: number }>;
  /** Where the agent fetches weights from, per model name (absent: `source` is used as is). */
  readonly weights: ReadonlyMap<string, WeightsConfig>;
  /** LoRA adapters per base model name, and the base model per adapter name. */
  readonly adapters: ReadonlyMap<string, readonly AdapterConfig[]>;
  readonly adapterBase: ReadonlyMap<string, { base: string; adapter: AdapterConfig }>;
  readonly maxLoadedAdapters: ReadonlyMap<string, number>;
  /** External providers per model name. */
  readonly providers: ReadonlyMap<string, ProviderConfig>;
  readonly projects: readonly ProjectRef[];
  readonly quotas: readonly QuotaRule[];
}

/** A quota entry of the file as placement's rule. */
export function quotaRuleOf(q: {
  org?: string;
  team?: string;
  project?: string;
  capacity_class?: CapacityClass;
  guarantee_gpus: number;
  limit_gpus?: number;
}): QuotaRule {
  const scope = q.org !== undefined ? 'org' : q.team !== undefined ? 'team' : 'project';
  return {
    scope,
    name: (q.org ?? q.team ?? q.project)!,
    guaranteeGpus: q.guarantee_gpus,
    ...(q.limit_gpus !== undefined ? { limitGpus: q.limit_gpus } : {}),
    ...(q.capacity_class ? { capacityClass: q.capacity_class } : {}),
  };
}

/** "models[2] (llama-3.3-70b).profiles[0] (h100).tp" from a zod path and the raw input. */
function describePath(raw: unknown, path: readonly PropertyKey[]): string {
  let out = '';
  let cur: unknown = raw;
  for (const k of path) {
    const next = cur && typeof cur === 'object' ? (cur as Record<PropertyKey, unknown>)[k as string] : undefined;
    if (typeof k === 'number') {
      out += `[${k}]`;
      const nm = next && typeof next === 'object' ? (next as Record<string, unknown>).name : undefined;
      if (typeof nm === 'string') out += ` (${nm})`;
    } else out += out ? `.${String(k)}` : String(k);
    cur = next;
  }
  return out || '(root)';
}

/**
 * Validates a parsed catalog; every problem is reported at once, each naming
 * the file, the model and the field. The result is frozen.
 */
export function parseCatalog(raw: unknown, source = 'catalog'): Catalog {
  const r = catalogSchema.safeParse(raw ?? {});
  if (!r.success)
    throw new ConfigError(
      source,
      r.error.issues.map((i) => `${describePath(raw, i.path)}: ${i.message}`),
    );
  const issues: string[] = [];
  const models: Model[] = [];
  const byName = new Map<string, Model>();
  const slo = new Map<string, { ttftP99Ms?: number; tpotP99Ms?: number }>();
  const claimed = new Map<string, string>();
  const weights = new Map<string, WeightsConfig>();
  const adapters = new Map<string, readonly AdapterConfig[]>();
  const adapterBase = new Map<string, { base: string; adapter: AdapterConfig }>();
  const maxLoadedAdapters = new Map<string, number>();
  const providers = new Map<string, ProviderConfig>();
  r.data.models.forEach((m, mi) => {
    const at = `models[${mi}] (${m.name})`;
    if (!m.profiles.length && !m.provider) issues.push(`${at}.profiles: a model needs at least one profile (or a provider)`);
    if (!m.source && !m.weights && !m.provider) issues.push(`${at}.source: give source, weights or provider`);
    if (m.scaling && !m.profiles.length) issues.push(`${at}.scaling: a provider-only model has no replicas to scale`);
    if (m.weights) weights.set(m.name, m.weights);
    if (m.provider) providers.set(m.name, m.provider);
    if (m.max_loaded_adapters) maxLoadedAdapters.set(m.name, m.max_loaded_adapters);
    if (m.adapters.length) adapters.set(m.name, m.adapters);
    m.adapters.forEach((a, ai) => {
      const prev = claimed.get(a.name) ?? adapterBase.get(a.name)?.base;
      if (prev !== undefined) issues.push(`${at}.adapters[${ai}] (${a.name}): the name is already used by ${prev}`);
      else adapterBase.set(a.name, { base: m.name, adapter: a });
    });
    for (const n of [m.name, ...m.aliases]) {
      const prev = claimed.get(n);
      if (prev !== undefined) issues.push(`${at}: name or alias "${n}" is already used by ${prev}`);
      else claimed.set(n, at);
    }
    const seen = new Set<string>();
    const profiles: Profile[] = m.profiles.map((p, pi) => {
      const pat = `${at}.profiles[${pi}] (${p.name})`;
      if (seen.has(p.name)) issues.push(`${pat}.name: duplicate profile name within the model`);
      seen.add(p.name);
      const gpn = p.gpus_per_node ?? (p.tp * p.pp) / p.nodes;
      if (!Number.isInteger(gpn)) issues.push(`${pat}.gpus_per_node: tp × pp (${p.tp * p.pp}) does not divide over ${p.nodes} nodes; set gpus_per_node`);
      const prof: Profile = {
        name: p.name,
        gpuClass: p.gpu_class,
        engine: p.engine,
        tp: p.tp,
        pp: p.pp,
        gpusPerNode: Number.isInteger(gpn) ? gpn : Math.ceil(gpn),
        nodes: p.nodes,
        args: p.args,
        env: p.env,
        weight: p.weight,
        priority: p.priority,
        startupTimeoutMs: p.startup_timeout,
        ...(p.launch_mode ? { launchMode: p.launch_mode } : {}),
        ...engineContract({ engine: p.engine, maxNumSeqs: p.max_num_seqs, kvEvents: p.kv_events, schedulingPolicy: p.scheduling_policy }),
      };
      if (Number.isInteger(gpn)) for (const e of validateProfileShape(prof)) issues.push(`${pat}: ${e}`);
      return prof;
    });
    const s = m.scaling;
    const min = s?.min ?? 0;
    const max = s ? (s.max ?? s.min) : 0;
    if (max < min) issues.push(`${at}.scaling.max: ${max} is below min ${min}`);
    if (m.fallbacks.includes(m.name)) issues.push(`${at}.fallbacks: a model cannot fall back to itself`);
    const model: Model = {
      name: m.name,
      aliases: m.aliases,
      source: m.source ?? m.weights?.path ?? m.weights?.hf ?? m.weights?.mirror ?? `provider:${m.provider?.model ?? m.name}`,
      profiles: profiles.sort((a, b) => b.priority - a.priority),
      scaling: { min, max, idleTimeoutMs: s?.idle_timeout ?? 0, targetWaitingPerReplica: s?.target_waiting_per_replica ?? 0 },
      fallbacks: m.fallbacks,
      ...(m.routing_profile ? { routingProfile: m.routing_profile } : {}),
      ...(m.weights && weightsMirror(m.weights) ? { weights: weightsMirror(m.weights) } : {}),
      ...(m.adapters.length ? { adapters: m.adapters.map(adapterLaunch) } : {}),
      ...(m.max_loaded_adapters ? { maxLoadedAdapters: m.max_loaded_adapters } : {}),
      capacityClass: m.capacity_class,
      ...(m.project ? { project: m.project } : {}),
      ...(m.keep_within ? { keepWithin: m.keep_within } : {}),
    };
    if (m.project && !r.data.projects.some((p) => p.name === m.project)) issues.push(`${at}.project: "${m.project}" is not under projects`);
    models.push(model);
    if (m.slo) slo.set(m.name, { ttftP99Ms: m.slo.ttft_p99, tpotP99Ms: m.slo.tpot_p99 });
  });
  models.forEach((m, mi) => {
    m.fallbacks.forEach((f, fi) => {
      if (!claimed.has(f)) issues.push(`models[${mi}] (${m.name}).fallbacks[${fi}]: "${f}" is not a model in the catalog`);
    });
  });
  const projectNames = new Set<string>();
  r.data.projects.forEach((p, i) => {
    if (projectNames.has(p.name)) issues.push(`projects[${i}] (${p.name}): duplicate project`);
    projectNames.add(p.name);
  });
  const quotas = r.data.quotas.map(quotaRuleOf);
  const quotaKeys = new Set<string>();
  quotas.forEach((q, i) => {
    const k = `${q.scope}/${q.name}/${q.capacityClass ?? '*'}`;
    if (quotaKeys.has(k)) issues.push(`quotas[${i}]: a second quota for ${q.scope} ${q.name}${q.capacityClass ? ` (${q.capacityClass})` : ''}`);
    quotaKeys.add(k);
  });
  for (const name of adapterBase.keys()) if (claimed.has(name)) issues.push(`adapter "${name}" has the name of ${claimed.get(name)}`);
  if (issues.length) throw new ConfigError(source, issues);
  for (const m of models) for (const n of [m.name, ...m.aliases]) byName.set(n, m);
  return deepFreeze({
    models,
    byName,
    slo,
    weights,
    adapters,
    adapterBase,
    maxLoadedAdapters,
    providers,
    projects: r.data.projects.map((p) => ({ name: p.name, ...(p.team ? { team: p.team } : {}), ...(p.org ? { org: p.org } : {}) })),
    quotas,
  });
}

/** Reads and validates a catalog file. */
export function loadCatalogFile(path: string): Catalog {
  return parseCatalog(readConfigFile(path), path);
}
