export * from './types';
export {
  ENGINE_RULES,
  engineContract,
  argValue,
  parseComputeCapability,
  requirements,
  validateOnGpus,
  validateProfileShape,
  type EngineContract,
  type EngineRules,
} from './engines';
export { Fleet, type ClassView } from './fleet';
export { explain, place, addToFootprint, domainOf, SCORE_WEIGHTS, type ExplainOptions, type PlacementGuard, type GuardReject, type PickedShard } from './place';
export { classOf, classRank, byClassDescending } from './classes';
export { QuotaBook, type QuotaRule, type QuotaScope, type ProjectRef, type QuotaOwner } from './quotas';
export { DEFAULT_FACILITY, PowerLedger, heldCheck, facilitySpread, type FacilityPolicy, type PowerBudget, type HeldDomain } from './facility';
export { Policy, gpusOf, ownerOf, modelOwner, type PolicyConfig, type RunningReplica } from './policy';
export { planPreemption, mayPreempt, type PreemptionPlan, type PreemptionInput, type Victim, type VictimReason } from './preemption';
export { Sharing, quotaKey, runningFrom, type RoomPlan, type ExplanationWithRoom, type ReplicaLike } from './sharing';
export { planDefrag, type DefragPlan, type DefragMove, type DefragInput } from './defrag';
export { planReplicas, type Demand, type PlanResult } from './plan';
export * from './reconciler/types';
export { Reconciler, type ReconcilerOptions, type ReconcilerLog, type PassResult } from './reconciler/reconciler';
export { makeNode, makeProfile, makeModel, SimFleet, type NodeSpec, type SimCommand } from './testing';
