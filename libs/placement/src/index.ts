export * from './types';
export { ENGINE_RULES, engineContract, argValue, parseComputeCapability, requirements, validateOnGpus, validateProfileShape, type EngineContract, type EngineRules } from './engines';
export { Fleet, type ClassView } from './fleet';
export { explain, place, addToFootprint, domainOf, SCORE_WEIGHTS, type ExplainOptions } from './place';
export { planReplicas, type Demand, type PlanResult } from './plan';
export * from './reconciler/types';
export { Reconciler, type ReconcilerOptions, type ReconcilerLog, type PassResult } from './reconciler/reconciler';
export { makeNode, makeProfile, makeModel, SimFleet, type NodeSpec, type SimCommand } from './testing';
