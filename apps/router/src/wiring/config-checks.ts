import { ConfigError, DEFAULT_BAND_CONFIGS, type RouterConfig } from '@llmgw/config';
import { buildProfiles, createDefaultRegistry, type RoutingProfile } from '@llmgw/scheduling';
import type { PrefixRouting } from '../prefix';

/** What the router checks at boot and what routing profiles are built from. */
export type ProfileConfig = Pick<RouterConfig, 'profiles' | 'default_band' | 'default_profile' | 'models'> & {
  admission: Pick<RouterConfig['admission'], 'bands'>;
  prefix: { session_affinity: Pick<RouterConfig['prefix']['session_affinity'], 'load_factor'> };
};

/**
 * The routing profiles (with the prefix scorer reading the router's prefix
 * index) and the band names, after checking that the defaults and every
 * model's routing_profile name one: a bad name is a boot error, not a 400 on
 * every request.
 */
export function profilesAndBands(
  cfg: ProfileConfig,
  prefix: Pick<PrefixRouting, 'index' | 'scorerParams'>,
): { profiles: Map<string, RoutingProfile>; bandNames: string[] } {
  const profiles = buildProfiles(cfg.profiles as never, createDefaultRegistry({ prefixIndex: prefix.index }), {
    scorerParams: { session: { load_factor: cfg.prefix.session_affinity.load_factor }, prefix: prefix.scorerParams },
  });
  const bandNames = (cfg.admission.bands ?? DEFAULT_BAND_CONFIGS).map((b) => b.name);
  if (!bandNames.includes(cfg.default_band))
    throw new ConfigError('router config', [`default_band: "${cfg.default_band}" is not a band (have: ${bandNames.join(', ')})`]);
  if (!profiles.has(cfg.default_profile))
    throw new ConfigError('router config', [`default_profile: "${cfg.default_profile}" is not a routing profile (have: ${[...profiles.keys()].join(', ')})`]);
  const issues: string[] = [];
  for (const m of cfg.models) {
    if (m.routing_profile !== undefined && !profiles.has(m.routing_profile)) issues.push(`models.${m.name}.routing_profile: no profile "${m.routing_profile}"`);
  }
  if (issues.length) throw new ConfigError('router config', issues);
  return { profiles, bandNames };
}
