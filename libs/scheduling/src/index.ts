export * from './types';
export { CACHE_DECISIONS, PREFIX_DECISIONS, NO_ENDPOINT_REASONS, type CacheDecision, type PrefixDecision, type NoEndpointReason } from './decisions';
export { SchedulingConfigError } from './errors';
export { PluginRegistry, parsePluginParams, type PluginFactory, type PluginKind } from './registry';
export { DrainingFilter, AvailableFilter, PinnedFilter, isUsable } from './filters/filters';
export { QueueScorer, type QueueScorerParams } from './scorers/queue-scorer';
export { KvScorer, type KvScorerParams } from './scorers/kv-scorer';
export { InflightScorer, type InflightScorerParams } from './scorers/inflight-scorer';
export { LoadScorer, type LoadScorerParams } from './scorers/load-scorer';
export { SessionScorer, type SessionScorerParams } from './scorers/session-scorer';
export { PrefixScorer, prefixScorerFactory, type PrefixScorerParams } from './scorers/prefix/prefix-scorer';
export { PoolPriorityScorer } from './scorers/pool-priority-scorer';
export { LoraScorer, loraScorerFactory, type LoraScorerParams } from './scorers/lora-scorer';
export { MaxScorePicker, P2cPicker, SoftmaxPicker, RoundRobinPicker } from './pickers/pickers';
export {
  createDefaultRegistry,
  type DefaultRegistryOptions,
  buildProfiles,
  profilesConfigSchema,
  profileConfigSchema,
  DEFAULT_PROFILES,
  MANDATORY_FILTERS,
  DEFAULT_INFLIGHT_WEIGHT,
  SESSION_WEIGHT,
  type ProfileConfig,
  type ProfilesConfig,
  type BuildProfilesOptions,
} from './profiles';
export { schedule, saturatedByLoad, replicaLoadOf, DEFAULT_SATURATION, type ScheduleOptions, type PoolSaturatedFn } from './schedule';
