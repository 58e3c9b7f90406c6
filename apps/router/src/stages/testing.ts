import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseConfig, routerConfigSchema, type RouterConfigInput } from '@llmgw/config';
import { createLogger } from '@llmgw/observability';
import { redisPool } from '@llmgw/service';
import { createRouter, type RouterCore } from '../router';
import type { TenancyHooks } from '../tenancy';
import { RequestContext, type ApiKind } from './context';

/** A router built from `config` (no listeners) whose stages a spec runs one by one. */
export async function stageRouter(config: RouterConfigInput, tenancy?: TenancyHooks): Promise<RouterCore> {
  const cfg = parseConfig(routerConfigSchema, { scrape_interval: 60_000, ...config });
  const log = createLogger({ service: 'router', level: 'silent' });
  const redis = redisPool(log);
  const core = await createRouter(cfg, { log, tenancy, redis: redis.connect });
  const close = core.close;
  core.close = async () => {
    await close();
    await redis.close();
  };
  return core;
}

/** A request context with these headers and, when given, this JSON body already parsed. */
export function contextOf(kind: ApiKind, headers: Record<string, string> = {}, body?: Record<string, unknown>): RequestContext {
  const raw = { headers } as unknown as IncomingMessage;
  const res = {} as ServerResponse;
  const c = new RequestContext(kind, 'req-test', raw, res);
  if (body) {
    c.body = body as Record<string, any>;
    c.buf = Buffer.from(JSON.stringify(body));
  }
  return c;
}
