import type { agentV1, EngineKind } from '@llmgw/contracts';

/** Engine kinds the agent can launch (ShardSpec.engine): libs/contracts engines.ts. */
export type { EngineKind } from '@llmgw/contracts';

/** What an adapter needs to know about the node besides the spec. */
export interface NodeContext {
  /** The node's management address (NodeInfo.mgmt_addr): engines listen on it, NCCL bootstraps over it. */
  mgmtAddr: string;
  /** agent.yaml mgmt_interface → NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME. */
  mgmtInterface?: string;
  /** The node's fabric attachments: NCCL_IB_HCA is limited to the spec's fabric's HCAs. */
  fabrics: readonly Pick<agentV1.FabricAttachment__Output, 'fabric' | 'hcas'>[];
  /** Gpu.index values the node has. */
  gpuIndices: readonly number[];
  /** Where engines bind (agent.yaml engine_bind_host; default the management address). */
  bindHost?: string;
}

/** A launch: argv (argv[0] the executable), the full environment the agent adds, and the probes. */
export interface EngineCommand {
  argv: string[];
  /** Added to the agent's environment (the profile's env already applied, except keys the agent owns). */
  env: Record<string, string>;
  /** Run after the process group is gone (e.g. `ray stop --force`); absent when nothing to clean. */
  cleanup?: string[];
  /** Where readiness is probed; absent for workers (rank > 0), which have no HTTP API. */
  healthUrl?: string;
  modelsUrl?: string;
  metricsUrl?: string;
  /** The HTTP base URL reported as ShardStatus.endpoint (rank 0 only). */
  endpoint?: string;
  /** The name /v1/models must list for READY. */
  servedModelName: string;
  /** The engine's API key (the replica's secret): the readiness probe of /v1/models presents it. */
  apiKey?: string;
}

/** How `engine-check` asks an engine about itself. */
export interface EngineProbe {
  /** The executable checked for existence. */
  binary: string;
  versionArgv: string[];
  helpArgv: string[];
  /** The version out of the version command's output. */
  parseVersion(output: string): string;
}

/**
 * One engine (docs/node-agent.md#engines): turns a shard spec into argv and environment.
 * Pure: no I/O, so every adapter is table-tested on its output.
 */
export interface Engine {
  readonly kind: EngineKind;
  /** Problems that make the spec unlaunchable on this node (empty = fine). */
  validate(spec: agentV1.ShardSpec__Output, node: NodeContext): string[];
  build(spec: agentV1.ShardSpec__Output, node: NodeContext): EngineCommand;
  /** Every flag `build` can emit, for `engine-check` against the engine's --help. */
  flags(spec?: agentV1.ShardSpec__Output): string[];
  probe(): EngineProbe;
}

/** Environment keys the agent owns; a profile's env cannot override them (fabric isolation depends on it). */
export const AGENT_OWNED_ENV = ['CUDA_VISIBLE_DEVICES', 'NCCL_IB_HCA', 'NCCL_IB_DISABLE'] as const;

/** The HCAs of `fabric` on this node; [] when the node is not attached to it. */
export function fabricHcas(node: NodeContext, fabric: string): string[] {
  return [...(node.fabrics.find((f) => f.fabric === fabric)?.hcas ?? [])];
}

/**
 * The environment every engine gets (docs/node-agent.md#engines):
 * CUDA_VISIBLE_DEVICES from the spec's GPUs ("" for CPU profiles, so a CPU
 * shard never grabs a card); NCCL_IB_HCA from the spec's HCAs that belong to
 * the spec's fabric on this node — exact-match (`=` prefix: NCCL otherwise
 * prefix-matches, and `mlx5_1` would also select `mlx5_10`); NCCL_IB_DISABLE=1
 * for single-node shards or when no HCA remains; NCCL/GLOO_SOCKET_IFNAME from
 * the management interface. The profile's env is applied first and cannot
 * override the keys above.
 */
export function baseEnv(spec: agentV1.ShardSpec__Output, node: NodeContext): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.env ?? {})) if (!(AGENT_OWNED_ENV as readonly string[]).includes(k)) env[k] = v;
  env.CUDA_VISIBLE_DEVICES = spec.gpuIndices.join(',');
  const allowed = new Set(spec.fabric ? fabricHcas(node, spec.fabric) : []);
  const hcas = [...new Set(spec.hcas)].filter((h) => allowed.has(h)).sort();
  if (spec.nnodes > 1 && hcas.length) env.NCCL_IB_HCA = '=' + hcas.join(',');
  else env.NCCL_IB_DISABLE = '1';
  if (node.mgmtInterface) {
    env.NCCL_SOCKET_IFNAME = node.mgmtInterface;
    env.GLOO_SOCKET_IFNAME = node.mgmtInterface;
  }
  return env;
}

/** Checks every engine shares: ranks, GPUs the node has, HCAs of the chosen fabric, agent-owned env. */
export function commonProblems(spec: agentV1.ShardSpec__Output, node: NodeContext): string[] {
  const p: string[] = [];
  if (!spec.shardId) p.push('shard_id is required');
  if (!spec.model && !spec.modelPath) p.push('model or model_path is required');
  const nnodes = Math.max(1, spec.nnodes);
  if (spec.rank >= nnodes) p.push(`rank ${spec.rank} is not below nnodes ${nnodes}`);
  if (spec.rank === 0 && !(spec.httpPort > 0 && spec.httpPort < 65536)) p.push('http_port is required for rank 0');
  if (nnodes > 1) {
    if (!spec.leaderAddr) p.push('leader_addr is required for a multi-node shard');
    if (!spec.leaderPort) p.push('leader_port is required for a multi-node shard');
    if (!spec.fabric) p.push('fabric is required for a multi-node shard');
  }
  const have = new Set(node.gpuIndices);
  const missing = spec.gpuIndices.filter((g) => !have.has(g));
  if (missing.length) p.push(`GPUs ${missing.join(', ')} do not exist on this node (it has ${node.gpuIndices.join(', ') || 'none'})`);
  if (new Set(spec.gpuIndices).size !== spec.gpuIndices.length) p.push('gpu_indices lists a GPU twice');
  if (spec.fabric) {
    if (!node.fabrics.some((f) => f.fabric === spec.fabric)) p.push(`this node is not attached to fabric ${spec.fabric}`);
    else {
      const own = new Set(fabricHcas(node, spec.fabric));
      const foreign = spec.hcas.filter((h) => !own.has(h));
      if (foreign.length) p.push(`HCAs ${foreign.join(', ')} are not on fabric ${spec.fabric}`);
    }
  }
  if (spec.fabric === 'unknown' && nnodes > 1) p.push('a multi-node shard cannot use fabric "unknown"');
  for (const k of AGENT_OWNED_ENV) if (spec.env && k in spec.env) p.push(`env ${k} is set by the agent from the spec and cannot be overridden`);
  return p;
}

/** rank 0's HTTP base URL on the management address. */
export function endpointOf(spec: agentV1.ShardSpec__Output, node: NodeContext, host = node.mgmtAddr): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${h}:${spec.httpPort}`;
}

/** The name the engine serves the model under. */
export function servedName(spec: agentV1.ShardSpec__Output): string {
  return spec.servedModelName || spec.model || spec.modelPath;
}

/** Probe URLs for rank 0. */
export function probes(
  spec: agentV1.ShardSpec__Output,
  node: NodeContext,
  host?: string,
): Pick<EngineCommand, 'healthUrl' | 'modelsUrl' | 'metricsUrl' | 'endpoint'> {
  if (spec.rank !== 0) return {};
  const endpoint = endpointOf(spec, node, host);
  return { endpoint, healthUrl: `${endpoint}/health`, modelsUrl: `${endpoint}/v1/models`, metricsUrl: `${endpoint}/metrics` };
}
