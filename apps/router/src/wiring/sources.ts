import type { RouterConfig } from '@llmgw/config';
import {
  EngineAuthorizer,
  readApiKeyFile,
  readEngineKeyFile,
  RedisEndpointSource,
  StaticEndpointSource,
  type EndpointInfo,
  type EndpointSource,
} from '@llmgw/endpoints';
import type { Logger } from '@llmgw/observability';
import type { RedisConnect } from '@llmgw/service';
import { inProcessState } from '@llmgw/stores';
import { OnDemand } from '../on-demand';

export type SourceConfig = Pick<RouterConfig, 'endpoint_source' | 'endpoints'>;

const DEFAULT_REDIS = 'redis://127.0.0.1:6379';

/** The endpoint source config describes: Redis (placement's endpoints), the process's in-memory state, or the static list. */
export async function openEndpointSource(cfg: SourceConfig, redis: RedisConnect, log: Logger): Promise<EndpointSource> {
  const es = cfg.endpoint_source;
  if (es.kind === 'redis') {
    return RedisEndpointSource.open({
      commands: await redis('endpoint source', es.redis_url ?? DEFAULT_REDIS),
      subscriber: await redis('endpoint source subscriber', es.redis_url ?? DEFAULT_REDIS, { kind: 'subscriber' }),
      keyPrefix: es.key_prefix,
      log,
    });
  }
  if (es.kind === 'memory') return inProcessState(es.key_prefix).endpoints.source();
  return new StaticEndpointSource(cfg.endpoints.map(({ api_key_file, ...e }) => ({ ...e, ...(api_key_file ? { apiKey: readApiKeyFile(api_key_file) } : {}) })));
}

/** On-demand loading reads the catalog placement publishes: only beside a Redis or in-memory endpoint source. */
export async function openOnDemand(
  cfg: Pick<RouterConfig, 'endpoint_source'>,
  redis: RedisConnect,
  source: EndpointSource,
  log: Logger,
): Promise<OnDemand | undefined> {
  const es = cfg.endpoint_source;
  const subscribe = (cb: () => void) => source.subscribe(cb);
  if (es.kind === 'redis') {
    return OnDemand.open({
      redis: await redis('on-demand catalog', es.redis_url ?? DEFAULT_REDIS),
      sub: await redis('on-demand catalog subscriber', es.redis_url ?? DEFAULT_REDIS, { kind: 'subscriber' }),
      keyPrefix: es.key_prefix,
      holdMs: es.on_demand_hold,
      subscribe,
      log,
    });
  }
  if (es.kind === 'memory') return new OnDemand({ view: inProcessState(es.key_prefix).catalog.reader(), holdMs: es.on_demand_hold, subscribe, log });
  return undefined;
}

/**
 * What each engine is sent as `authorization` (docs/placement.md, "Engine
 * secrets"): its replica secret or its static key, never the client's.
 * `close` stops following the source.
 */
export function engineAuthorization(
  engineKeyFile: string | undefined,
  source: EndpointSource,
  log: Logger,
): { header(id: string): string | undefined; close(): void } {
  const auth = new EngineAuthorizer(engineKeyFile ? readEngineKeyFile(engineKeyFile) : undefined, (id) =>
    log.warn({ endpoint: id }, 'endpoint requires its replica secret but the router has no engine_key_file; the engine will refuse it'),
  );
  const infoById = new Map<string, EndpointInfo>();
  const index = () => {
    infoById.clear();
    for (const e of source.all()) infoById.set(e.id, e);
  };
  index();
  const close = source.subscribe(index);
  return {
    header(id) {
      const e = infoById.get(id);
      return e ? auth.header(e) : undefined;
    },
    close,
  };
}
