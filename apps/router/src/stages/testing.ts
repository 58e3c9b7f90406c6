import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseConfig, routerConfigSchema, type RouterConfigInput } from '@llmgw/config';
import { createLogger } from '@llmgw/observability';
import { createRouter, type RouterCore } from '../router';
import type { TenancyHooks } from '../tenancy';
import { RequestContext, type ApiKind } from './context';

/** A router built from `config` (no listeners) whose stages a spec runs one by one. */
export async function stageRouter(config: RouterConfigInput, tenancy?: TenancyHooks): Promise<RouterCore> {
  const cfg = parseConfig(routerConfigSchema, { scrape_interval: 60_000, ...config });
  return createRouter(cfg, { log: createLogger({ service: 'router', level: 'silent' }), tenancy });
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
