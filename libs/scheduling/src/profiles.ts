import { z } from 'zod';
import { SchedulingConfigError, zodIssues } from './errors';
import { availableFilterFactory, drainingFilterFactory, pinnedFilterFactory } from './filters/filters';
import { maxScorePickerFactory, p2cPickerFactory, roundRobinPickerFactory, softmaxPickerFactory } from './pickers/pickers';
import { PluginRegistry } from './registry';
import { inflightScorerFactory } from './scorers/inflight-scorer';
import { kvScorerFactory } from './scorers/kv-scorer';
import { loadScorerFactory } from './scorers/load-scorer';
import { loraScorerFactory } from './scorers/lora-scorer';
import { poolPriorityScorerFactory } from './scorers/pool-priority-scorer';
import { queueScorerFactory } from './scorers/queue-scorer';
import { sessionScorerFactory } from './scorers/session-scorer';
import { prefixScorerFactory } from './scorers/prefix/prefix-scorer';
import type { PrefixIndex } from '@llmgw/prefix';
import type { Filter, RoutingProfile, WeightedScorer } from './types';

export interface DefaultRegistryOptions {
  /** The index the `prefix` scorer reads and records into (the router's, shared across routers); a private one otherwise. */
  prefixIndex?: PrefixIndex;
}

/** A registry with every built-in filter, scorer and picker. */
export function createDefaultRegistry(opts: DefaultRegistryOptions = {}): PluginRegistry {
  return new PluginRegistry()
    .register('draining-filter', drainingFilterFactory)
    .register('available-filter', availableFilterFactory)
    .register('pinned-filter', pinnedFilterFactory)
    .register('queue-scorer', queueScorerFactory)
    .register('kv-scorer', kvScorerFactory)
    .register('inflight-scorer', inflightScorerFactory)
    .register('load-scorer', loadScorerFactory)
    .register('session-scorer', sessionScorerFactory)
    .register('prefix-scorer', prefixScorerFactory(opts.prefixIndex))
    .register('pool-priority-scorer', poolPriorityScorerFactory)
    .register('lora-scorer', loraScorerFactory)
    .register('max-score-picker', maxScorePickerFactory)
    .register('p2c-picker', p2cPickerFactory)
    .register('softmax-picker', softmaxPickerFactory)
    .register('round-robin-picker', roundRobinPickerFactory);
}

/** Filters every profile runs first, in this order; config `filters` are appended. */
export const MANDATORY_FILTERS = ['draining', 'available', 'pinned'] as const;

/** Added to a profile that omits `inflight` (it is always on, docs/scheduling.md#scorers). */
export const DEFAULT_INFLIGHT_WEIGHT = 1;

const pickerConfigSchema = z
  .object({
    /** Picker name without the `-picker` suffix: max-score, p2c, softmax, round-robin. */
    type: z.string().min(1),
  })
  // The picker's own parameters sit beside `type` (docs/scheduling.md#pickers: `{ type: softmax, temperature: 0.2 }`);
  // the picker's factory checks them strictly.
  .catchall(z.unknown());

/** One routing profile as written in config (the router's `profiles:`, docs/scheduling.md#routing-profiles). */
export const profileConfigSchema = z
  .object({
    /** Scorer name (without `-scorer`) → weight (> 0). `inflight` is added with weight 1 if absent. */
    scorers: z.record(z.string().min(1), z.number().positive().finite()).default({}),
    /** Per-scorer parameters, e.g. `{ queue: { target_waiting: 8 } }`; each scorer checks its own strictly. */
    scorer_params: z.record(z.string().min(1), z.record(z.string(), z.unknown())).default({}),
    picker: pickerConfigSchema.default({ type: 'max-score' }),
    /** Extra filters (without `-filter`), run after draining, available and pinned. */
    filters: z.array(z.string().min(1)).default([]),
  })
  .strict();

/** The router config's `profiles:` block: profile name → profile. */
export const profilesConfigSchema = z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'profile names are lower-case kebab/snake case'), profileConfigSchema);

export type ProfileConfig = z.input<typeof profileConfigSchema>;
export type ProfilesConfig = z.input<typeof profilesConfigSchema>;

/**
 * Built-in profiles (docs/scheduling.md#routing-profiles), used for any name the config does not
 * define. `chat` has tier-0 `session` affinity first, at a weight
 * (SESSION_WEIGHT) above the sum of every other scorer's, so a request with a
 * session key stays on its ring replica until the bounded-load ring moves it;
 * without a key `session` scores everyone alike and the tier-1/2 `prefix`
 * scorer decides, as in `batch` and `long-context`. `chat` uses max-score rather than p2c: p2c sees only two of N
 * candidates, so the replica holding the prompt's prefix would be a candidate
 * on only 2/N of requests and affinity would be lost; inflight keeps
 * max-score from herding. `batch` keeps `load` at 1 as the configuration
 * example in docs/scheduling.md does: `running / drain_rate` spots a
 * slow replica, which matters for throughput.
 */
/** `session`'s weight in the built-in `chat`: more than prefix 3 + queue 1 + kv 1 + inflight 1, so the session's replica always wins. */
export const SESSION_WEIGHT = 10;
/**
 * `session`'s `min_bound` in the built-in `chat`: a replica with fewer than 4 requests in flight (the
 * new one counted) keeps its sessions, so at a handful of requests per replica a session does not
 * leave its cache each time its replica holds one request more than the average.
 */
export const SESSION_MIN_BOUND = 4;

export const DEFAULT_PROFILES: Readonly<Record<string, ProfileConfig>> = Object.freeze({
  chat: {
    scorers: { session: SESSION_WEIGHT, prefix: 3, queue: 1, kv: 1, inflight: 1 },
    scorer_params: { session: { min_bound: SESSION_MIN_BOUND } },
    picker: { type: 'max-score' },
  },
  batch: { scorers: { queue: 3, kv: 1, load: 1, prefix: 0.5, inflight: 1 }, picker: { type: 'max-score' } },
  'long-context': { scorers: { kv: 3, prefix: 2, queue: 1, inflight: 1 }, picker: { type: 'softmax', temperature: 0.2 } },
  debug: { scorers: { inflight: 1 }, picker: { type: 'round-robin' } },
});

/** Scorer names reserved for what is not built yet, with the message naming them gives. */
const NOT_YET: Record<string, string> = {};

export interface BuildProfilesOptions {
  /**
   * Scorer params applied to every profile, under each profile's own
   * `scorer_params` (e.g. the router's `prefix.session_affinity.load_factor`
   * as `{ session: { load_factor: 1.5 } }`).
   */
  scorerParams?: Record<string, Record<string, unknown>>;
}

/**
 * Builds every routing profile: DEFAULT_PROFILES overlaid by `config` (a
 * profile of the same name replaces the default whole). Validates everything
 * and throws one SchedulingConfigError listing every problem.
 */
export function buildProfiles(
  config: ProfilesConfig | undefined,
  registry: PluginRegistry = createDefaultRegistry(),
  options: BuildProfilesOptions = {},
): Map<string, RoutingProfile> {
  const parsed = profilesConfigSchema.safeParse({ ...DEFAULT_PROFILES, ...(config ?? {}) });
  if (!parsed.success) throw new SchedulingConfigError(zodIssues('profiles', parsed.error));

  const issues: string[] = [];
  const out = new Map<string, RoutingProfile>();
  for (const [name, p] of Object.entries(parsed.data)) {
    const where = `profiles.${name}`;
    const attempt = <T>(fn: () => T): T | undefined => {
      try {
        return fn();
      } catch (e) {
        if (e instanceof SchedulingConfigError) issues.push(...e.issues.map((i) => `${where}: ${i}`));
        else issues.push(`${where}: ${(e as Error).message}`);
        return undefined;
      }
    };

    const filters: Filter[] = [];
    for (const f of [...MANDATORY_FILTERS, ...p.filters.filter((x) => !(MANDATORY_FILTERS as readonly string[]).includes(x))]) {
      const made = attempt(() => registry.create('filter', `${f}-filter`, f));
      if (made) filters.push(made);
    }

    const weights: Record<string, number> = { ...p.scorers };
    if (weights.inflight === undefined) weights.inflight = DEFAULT_INFLIGHT_WEIGHT;
    for (const key of Object.keys(p.scorer_params)) {
      if (weights[key] === undefined) issues.push(`${where}.scorer_params.${key}: scorer '${key}' is not in this profile's scorers`);
    }
    const scorers: WeightedScorer[] = [];
    for (const [s, weight] of Object.entries(weights)) {
      if (NOT_YET[s]) {
        issues.push(`${where}.scorers.${s}: ${NOT_YET[s]}`);
        continue;
      }
      if (!registry.has(`${s}-scorer`)) {
        const known = registry.types('scorer').map((t) => t.replace(/-scorer$/, ''));
        issues.push(`${where}.scorers.${s}: unknown scorer '${s}' (known: ${known.join(', ')})`);
        continue;
      }
      const params = { ...(options.scorerParams?.[s] ?? {}), ...(p.scorer_params[s] ?? {}) };
      const scorer = attempt(() => registry.create('scorer', `${s}-scorer`, s, params));
      if (scorer) scorers.push({ scorer, weight });
    }

    const { type: pickerType, ...pickerParams } = p.picker;
    let picker;
    if (!registry.has(`${pickerType}-picker`)) {
      const known = registry.types('picker').map((t) => t.replace(/-picker$/, ''));
      issues.push(`${where}.picker.type: unknown picker '${pickerType}' (known: ${known.join(', ')})`);
    } else {
      picker = attempt(() => registry.create('picker', `${pickerType}-picker`, pickerType, pickerParams));
    }
    if (picker) out.set(name, Object.freeze({ name, filters, scorers, picker }));
  }
  if (issues.length > 0) throw new SchedulingConfigError(issues);
  return out;
}
