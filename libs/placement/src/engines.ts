import type { EngineKind, FleetGpu, Profile } from './types';

/**
 * What placement needs to know about each engine (its adapter, docs/node-agent.md#engines):
 * which profile shapes it can run at all (checked when the catalog loads) and
 * which GPUs it can run a profile on (checked per node while placing).
 */
export interface EngineRules {
  /** Can one replica span several nodes? */
  readonly multiNode: boolean;
  /**
   * Start order of a multi-node replica's shards. A real engine's worker
   * waits for the leader's rendezvous itself (the agent does not hold it
   * back), so either order comes up; workers first means the leader, which
   * serves HTTP, starts last and is only health-checked once every worker has
   * been launched.
   */
  readonly startOrder: 'workers-first' | 'leader-first';
  /** What the data path gets from this engine unless the profile says otherwise (docs/placement.md). */
  readonly defaults: EngineContract;
  /** Can the engine publish KV-cache events (vLLM's ZMQ protocol)? */
  readonly kvEvents: boolean;
  /** Can the engine order its queue by request priority? */
  readonly priorityScheduling: boolean;
}

/**
 * What a profile's engine supports, as the data path uses it: batch slots
 * (admission's credits, the router's upstream pool), KV events (prefix tier 2)
 * and the scheduling policy (bands carried into the engine).
 */
export interface EngineContract {
  readonly maxNumSeqs: number;
  readonly kvEvents: boolean;
  readonly schedulingPolicy: 'fcfs' | 'priority';
}

export const ENGINE_RULES: Readonly<Record<EngineKind, EngineRules>> = {
  vllm: {
    multiNode: true,
    startOrder: 'workers-first',
    kvEvents: true,
    priorityScheduling: true,
    defaults: { maxNumSeqs: 256, kvEvents: true, schedulingPolicy: 'priority' },
  },
  sglang: {
    multiNode: true,
    startOrder: 'workers-first',
    kvEvents: true,
    priorityScheduling: true,
    defaults: { maxNumSeqs: 256, kvEvents: true, schedulingPolicy: 'priority' },
  },
  // llama-server: its slots are `--parallel`; it publishes no KV events and serves its slots in arrival order.
  llamacpp: {
    multiNode: false,
    startOrder: 'workers-first',
    kvEvents: false,
    priorityScheduling: false,
    defaults: { maxNumSeqs: 4, kvEvents: false, schedulingPolicy: 'fcfs' },
  },
  sim: {
    multiNode: true,
    startOrder: 'workers-first',
    kvEvents: true,
    priorityScheduling: true,
    defaults: { maxNumSeqs: 256, kvEvents: true, schedulingPolicy: 'priority' },
  },
};

/** The profile's engine contract: what it declares, the engine's defaults for the rest. */
export function engineContract(p: Pick<Profile, 'engine' | 'maxNumSeqs' | 'kvEvents' | 'schedulingPolicy'>): EngineContract {
  const d = ENGINE_RULES[p.engine].defaults;
  return { maxNumSeqs: p.maxNumSeqs ?? d.maxNumSeqs, kvEvents: p.kvEvents ?? d.kvEvents, schedulingPolicy: p.schedulingPolicy ?? d.schedulingPolicy };
}

/** The value following `flag` in args ("--flag v" or "--flag=v"); undefined when absent. */
export function argValue(args: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag) return args[i + 1];
    if (args[i].startsWith(`${flag}=`)) return args[i].slice(flag.length + 1);
  }
  return undefined;
}

/** "8.9" → 89; "" or garbage → undefined. */
export function parseComputeCapability(cc: string): number | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(cc.trim());
  return m ? Number(m[1]) * 10 + Number(m[2]) : undefined;
}

/** A GPU feature a profile's arguments need, with the minimum compute capability. */
interface Requirement {
  readonly what: string;
  readonly minCc: number;
}

/**
 * Requirements implied by a profile's engine arguments. FP8 weights or KV
 * cache need Ada/Hopper (8.9); bfloat16 needs Ampere (8.0).
 */
export function requirements(p: Profile): Requirement[] {
  const out: Requirement[] = [];
  const q = argValue(p.args, '--quantization')?.toLowerCase();
  const kv = argValue(p.args, '--kv-cache-dtype')?.toLowerCase();
  const dtype = argValue(p.args, '--dtype')?.toLowerCase();
  if (q?.startsWith('fp8')) out.push({ what: `--quantization ${q}`, minCc: 89 });
  if (kv?.startsWith('fp8')) out.push({ what: `--kv-cache-dtype ${kv}`, minCc: 89 });
  if (dtype === 'bfloat16' || dtype === 'bf16') out.push({ what: `--dtype ${dtype}`, minCc: 80 });
  return out;
}

/**
 * The engine's per-node validation: undefined when the profile can run on
 * these GPUs, else why not ("--quantization fp8 needs compute capability ≥
 * 8.9; GPU 0 has 8.0").
 */
export function validateOnGpus(p: Profile, gpus: readonly FleetGpu[]): string | undefined {
  const reqs = requirements(p);
  if (!reqs.length) return undefined;
  for (const r of reqs) {
    for (const g of gpus) {
      const cc = parseComputeCapability(g.computeCapability);
      if (cc === undefined) return `${r.what} needs compute capability ≥ ${fmtCc(r.minCc)}; GPU ${g.index} does not report one`;
      if (cc < r.minCc) return `${r.what} needs compute capability ≥ ${fmtCc(r.minCc)}; GPU ${g.index} has ${g.computeCapability}`;
    }
  }
  return undefined;
}

const fmtCc = (n: number) => `${Math.floor(n / 10)}.${n % 10}`;

/** Shape checks done once when the catalog loads; the list of problems (empty = fine). */
export function validateProfileShape(p: Profile): string[] {
  const errs: string[] = [];
  const rules = ENGINE_RULES[p.engine];
  if (p.nodes > 1 && !rules.multiNode) errs.push(`engine ${p.engine} cannot span nodes (nodes: ${p.nodes})`);
  if (p.tp * p.pp !== p.gpusPerNode * p.nodes) {
    errs.push(`tp × pp (${p.tp} × ${p.pp} = ${p.tp * p.pp}) must equal gpus_per_node × nodes (${p.gpusPerNode} × ${p.nodes} = ${p.gpusPerNode * p.nodes})`);
  }
  if (p.launchMode !== undefined && p.engine !== 'vllm') errs.push(`launch_mode is a vllm setting; engine is ${p.engine}`);
  if (p.kvEvents && !rules.kvEvents) errs.push(`engine ${p.engine} publishes no KV events (kv_events: true)`);
  if (p.schedulingPolicy === 'priority' && !rules.priorityScheduling) errs.push(`engine ${p.engine} has no priority scheduling (scheduling_policy: priority)`);
  return errs;
}
