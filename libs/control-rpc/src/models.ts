import type { controlV1 } from '@llmgw/contracts';
import type { Catalog } from '@llmgw/config';
import { LlmgwError } from '@llmgw/errors';
import { boundedSchema, callerActor, unary, type UnaryLogger } from '@llmgw/grpc';
import {
  scalingMode,
  type AppliedCapacity,
  type ExplanationWithRoom,
  type Model,
  type Profile,
  type Reconciler,
  type RejectReason,
  type ReplicaStateName,
  type ReplicaView,
} from '@llmgw/placement';
import { z } from 'zod';
import type { AuditSink } from './audit';

/** What the model half needs of the placement-scheduler. */
export interface ModelAdminScheduler {
  readonly reconciler: Reconciler;
  /** `ctl model target`: undefined clears; resolves false when nothing changed. */
  setTarget(model: Model, t: { min: number; max: number } | undefined): Promise<boolean>;
  /** `ctl capacity apply`: weights and targets from measured profiles; undefined clears; resolves false when nothing changed. */
  setApplied?(model: Model, a: AppliedCapacity | undefined): Promise<boolean>;
  /** The autoscaler's latest decision (docs/capacity.md); absent or undefined when it has none. */
  autoscaleStatus?(model: string): controlV1.AutoscaleStatus | undefined;
}

const REJECT: Record<RejectReason, controlV1.RejectReason> = {
  none: 'REJECT_REASON_NONE',
  'gpu-class': 'REJECT_REASON_GPU_CLASS',
  'insufficient-gpus': 'REJECT_REASON_INSUFFICIENT_GPUS',
  'node-not-ready': 'REJECT_REASON_NODE_NOT_READY',
  'node-cordoned': 'REJECT_REASON_NODE_CORDONED',
  'no-fabric': 'REJECT_REASON_NO_FABRIC',
  'hca-not-active': 'REJECT_REASON_HCA_NOT_ACTIVE',
  'engine-validation': 'REJECT_REASON_ENGINE_VALIDATION',
  'engine-missing': 'REJECT_REASON_ENGINE_MISSING',
  'not-enough-nodes': 'REJECT_REASON_NOT_ENOUGH_NODES',
  'at-max-replicas': 'REJECT_REASON_AT_MAX_REPLICAS',
  'quota-limit': 'REJECT_REASON_QUOTA_LIMIT',
  'facility-held': 'REJECT_REASON_FACILITY_HELD',
  'power-cap': 'REJECT_REASON_POWER_CAP',
  'keep-within': 'REJECT_REASON_KEEP_WITHIN',
};

const REPLICA_STATE: Record<ReplicaStateName, controlV1.ReplicaState> = {
  starting: 'REPLICA_STATE_STARTING',
  ready: 'REPLICA_STATE_READY',
  draining: 'REPLICA_STATE_DRAINING',
  stopping: 'REPLICA_STATE_STOPPING',
  failed: 'REPLICA_STATE_FAILED',
};

const SHARD_STATE: Record<string, string> = {
  unreported: 'SHARD_STATE_UNSPECIFIED',
  pending: 'SHARD_STATE_PENDING',
  downloading: 'SHARD_STATE_DOWNLOADING',
  starting: 'SHARD_STATE_STARTING',
  loading: 'SHARD_STATE_LOADING',
  ready: 'SHARD_STATE_READY',
  draining: 'SHARD_STATE_DRAINING',
  stopped: 'SHARD_STATE_STOPPED',
  failed: 'SHARD_STATE_FAILED',
};

function profileToWire(p: Profile): controlV1.Profile {
  return {
    name: p.name,
    gpuClass: p.gpuClass,
    engine: p.engine,
    tensorParallel: p.tp,
    pipelineParallel: p.pp,
    gpusPerNode: p.gpusPerNode,
    nodes: p.nodes,
    priority: p.priority,
    weight: p.weight,
    startupTimeoutMs: p.startupTimeoutMs,
  };
}

function replicaToWire(r: ReplicaView): controlV1.Replica {
  return {
    replicaId: r.id,
    model: r.model,
    profile: r.profile.name,
    fabric: r.fabric,
    gpuClass: r.gpuClass,
    engine: r.profile.engine,
    state: REPLICA_STATE[r.state],
    endpoint: r.endpoint,
    shards: r.shards.map((s) => ({
      shardId: s.shardId,
      nodeId: s.nodeId,
      rank: s.rank,
      gpuIndices: [...s.gpuIndices],
      state: SHARD_STATE[s.state] as controlV1.ReplicaShard['state'],
      message: s.message,
    })),
    createdAtMs: r.createdAtMs,
    readyAtMs: r.readyAtMs,
    adopted: r.adopted,
    message: r.message,
  };
}

export function explanationToWire(e: ExplanationWithRoom, current: number, desired: number): controlV1.ExplainPlacementResponse {
  return {
    room: e.room
      ? {
          kind: e.room.kind,
          victims: e.room.victims.map((v) => ({ replicaId: v.replica, model: v.model, capacityClass: v.capacityClass, why: v.why, detail: v.detail })),
          decision: {
            profile: e.room.decision.profile.name,
            fabric: e.room.decision.fabric,
            shards: e.room.decision.shards.map((s) => ({ nodeId: s.nodeId, rank: s.rank, gpuIndices: [...s.gpuIndices], hcas: [...s.hcas] })),
          },
        }
      : null,
    model: e.model,
    schedulable: e.schedulable,
    decision: e.decision
      ? {
          profile: e.decision.profile.name,
          fabric: e.decision.fabric,
          shards: e.decision.shards.map((s) => ({ nodeId: s.nodeId, rank: s.rank, gpuIndices: [...s.gpuIndices], hcas: [...s.hcas] })),
        }
      : null,
    profiles: e.profiles.map((p) => ({
      profile: p.profile,
      priority: p.priority,
      gpuClass: p.gpuClass,
      nodes: p.nodes,
      gpusPerNode: p.gpusPerNode,
      reason: REJECT[p.reason],
      detail: p.detail,
      pools: p.pools.map((pool) => ({
        pool: pool.pool,
        gpuClass: pool.gpuClass,
        fabric: pool.fabric,
        reason: REJECT[pool.reason],
        detail: pool.detail,
        nodes: pool.nodes.map((n) => ({ nodeId: n.nodeId, reason: REJECT[n.reason], detail: n.detail, freeGpus: n.freeGpus, score: n.score })),
      })),
    })),
    replicasCurrent: current,
    replicasDesired: desired,
  };
}

/** The model half of the ControlService over a running scheduler. */
export class ModelAdmin {
  constructor(
    private readonly catalog: Catalog,
    private readonly scheduler: ModelAdminScheduler,
  ) {}

  private model(name: string): Model {
    const m = this.catalog.byName.get(name);
    if (!m) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `model ${JSON.stringify(name)} is not in the catalog`);
    return m;
  }

  modelToWire(m: Model): controlV1.Model {
    const rec = this.scheduler.reconciler;
    const s = rec.scalingOf(m);
    const replicas = rec.replicaViews().filter((r) => r.model === m.name);
    return {
      name: m.name,
      aliases: [...m.aliases],
      source: m.source,
      profiles: m.profiles.map(profileToWire),
      scaling: { minReplicas: s.min, maxReplicas: s.max, idleTimeoutMs: s.idleTimeoutMs, targetWaitingPerReplica: s.targetWaitingPerReplica },
      fallbacks: [...m.fallbacks],
      replicasDesired: rec.desired(m),
      replicasReady: replicas.filter((r) => r.state === 'ready').length,
      replicasTotal: replicas.length,
      scalingOverridden: rec.target(m.name) !== undefined,
      scalingMode: scalingMode(s),
      lastDemandMs: rec.lastDemandOf(m.name) ?? 0,
      capacityClass: m.capacityClass ?? 'standard',
      project: m.project ?? '',
      gpusUsed: replicas
        .filter((r) => r.state === 'starting' || r.state === 'ready')
        .reduce((n, r) => n + r.shards.reduce((k, s) => k + s.gpuIndices.length, 0), 0),
      ...((a) => (a ? { autoscale: a } : {}))(this.scheduler.autoscaleStatus?.(m.name)),
      ...((a) => (a ? { appliedCapacity: appliedToWire(a) } : {}))(rec.applied(m.name)),
    };
  }

  listModels(): controlV1.ListModelsResponse {
    return { models: [...this.catalog.models].sort((a, b) => (a.name < b.name ? -1 : 1)).map((m) => this.modelToWire(m)) };
  }

  listReplicas(req: { model: string; nodeId: string }): controlV1.ListReplicasResponse {
    const model = req.model ? this.model(req.model).name : undefined;
    const rs = this.scheduler.reconciler
      .replicaViews()
      .filter((r) => (!model || r.model === model) && (!req.nodeId || r.shards.some((s) => s.nodeId === req.nodeId)));
    return { replicas: rs.map(replicaToWire) };
  }

  explain(req: { model: string; profile: string }): controlV1.ExplainPlacementResponse {
    const m = this.model(req.model);
    if (req.profile && !m.profiles.some((p) => p.name === req.profile)) {
      throw new LlmgwError(
        'LLMGW_ERR_NOT_FOUND',
        `model ${m.name} has no profile ${JSON.stringify(req.profile)} (has ${m.profiles.map((p) => p.name).join(', ')})`,
      );
    }
    const rec = this.scheduler.reconciler;
    const live = rec.replicaViews().filter((r) => r.model === m.name && (r.state === 'starting' || r.state === 'ready')).length;
    return explanationToWire(rec.explain(m, req.profile || undefined), live, rec.desired(m));
  }

  /**
   * `ctl model target` and `ctl capacity apply` (docs/capacity.md "Applying a
   * profile"): the replica target, the applied capacity, or both, as one change.
   */
  async setTarget(req: TargetRequest, actor = ''): Promise<controlV1.SetModelTargetResponse> {
    const m = this.model(req.model);
    const cap = req.appliedCapacity ?? undefined;
    if (cap && req.clearCapacity) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'applied_capacity and clear_capacity exclude each other');
    if (!req.keepReplicas && !req.clear && req.maxReplicas < req.minReplicas) {
      throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `max_replicas (${req.maxReplicas}) must be ≥ min_replicas (${req.minReplicas})`);
    }
    let changed = false;
    if (cap || req.clearCapacity) {
      if (!this.scheduler.setApplied) throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'this scheduler cannot apply capacity');
      changed = await this.scheduler.setApplied(m, cap ? appliedFromWire(m, cap, actor) : undefined);
    }
    if (!req.keepReplicas) changed = (await this.scheduler.setTarget(m, req.clear ? undefined : { min: req.minReplicas, max: req.maxReplicas })) || changed;
    return { model: this.modelToWire(m), changed };
  }
}

type TargetRequest = z.output<typeof targetSchema>;

/** The applied capacity as the scheduler keeps it: every profile the model's, each once. */
function appliedFromWire(m: Model, c: NonNullable<TargetRequest['appliedCapacity']>, actor: string): AppliedCapacity {
  const seen = new Set<string>();
  for (const p of c.profiles) {
    if (!m.profiles.some((q) => q.name === p.profile))
      throw new LlmgwError(
        'LLMGW_ERR_INVALID_ARGUMENT',
        `model ${m.name} has no profile ${JSON.stringify(p.profile)} (has ${m.profiles.map((q) => q.name).join(', ')})`,
      );
    if (seen.has(p.profile)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `profile ${p.profile} is given twice`);
    seen.add(p.profile);
  }
  return {
    profiles: c.profiles.map((p) => ({ ...p })),
    targetWaitingPerReplica: c.targetWaitingPerReplica,
    appliedAtMs: Date.now(),
    appliedBy: actor,
  };
}

function appliedToWire(a: AppliedCapacity): controlV1.AppliedCapacity {
  return {
    profiles: a.profiles.map((p) => ({ ...p })),
    targetWaitingPerReplica: a.targetWaitingPerReplica,
    appliedAtMs: a.appliedAtMs,
    appliedBy: a.appliedBy,
  };
}

const name = z.string().trim().max(256);
const listReplicasSchema = z.object({ model: name, nodeId: name }).passthrough();
const explainSchema = z.object({ model: name.min(1, 'model is required'), profile: name }).passthrough();
const targetSchema = z
  .object({
    model: name.min(1, 'model is required'),
    minReplicas: z.number().int().min(0).max(10_000),
    maxReplicas: z.number().int().min(0).max(10_000),
    clear: z.boolean(),
    appliedCapacity: z
      .object({
        profiles: z
          .array(
            z.object({
              profile: name.min(1, 'profile is required'),
              weight: z.number().int().min(1).max(1_000_000),
              targetWaitingPerReplica: z.number().positive().max(1_000_000),
              maxConcurrencyAtSlo: z.number().int().min(0),
              gpuClass: name,
            }),
          )
          .min(1, 'applied_capacity needs at least one profile')
          .max(64),
        targetWaitingPerReplica: z.number().positive().max(1_000_000),
      })
      .nullish(),
    clearCapacity: z.boolean().default(false),
    keepReplicas: z.boolean().default(false),
  })
  .passthrough();

export type ControlModelHandlers = Pick<controlV1.ControlServiceHandlers, 'ListModels' | 'ListReplicas' | 'ExplainPlacement' | 'SetModelTarget'>;

/**
 * grpc-js handlers of the model half: validated input, catalogue errors as
 * statuses; a model target change goes to the audit log with the caller.
 */
export function controlModelHandlers(admin: ModelAdmin, opts: { log?: UnaryLogger; audit?: AuditSink } = {}): ControlModelHandlers {
  const log = opts.log;
  return {
    ListModels: unary({ log, handler: () => admin.listModels() }),
    ListReplicas: unary({ log, schema: boundedSchema(listReplicasSchema), handler: (r) => admin.listReplicas(r) }),
    ExplainPlacement: unary({ log, schema: boundedSchema(explainSchema), handler: (r) => admin.explain(r) }),
    SetModelTarget: unary({
      log,
      schema: boundedSchema(targetSchema),
      handler: async (r, ctx) => {
        const actor = callerActor(ctx.call);
        const res = await admin.setTarget(r, actor);
        const s = res.model?.scaling;
        const cap = r.appliedCapacity
          ? { capacity: { profiles: r.appliedCapacity.profiles, targetWaitingPerReplica: r.appliedCapacity.targetWaitingPerReplica } }
          : {};
        opts.audit?.record({
          actor,
          action: targetAction(r),
          targetType: 'model',
          targetId: res.model?.name ?? r.model,
          details: {
            ...(r.keepReplicas || r.clear ? {} : { min: s?.minReplicas, max: s?.maxReplicas }),
            ...cap,
            ...(r.clearCapacity ? { capacityCleared: true } : {}),
            changed: res.changed,
          },
        });
        return res;
      },
    }),
  };
}

/** The audit action of one SetModelTarget: `model.capacity.apply` / `.clear` for a change of capacity only. */
function targetAction(r: TargetRequest): string {
  if (r.keepReplicas) return r.clearCapacity ? 'model.capacity.clear' : 'model.capacity.apply';
  return r.clear ? 'model.target.clear' : 'model.target';
}
