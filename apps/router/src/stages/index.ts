/**
 * The router's request path, one stage per file, run in this order by
 * router.ts: authenticate → parse → resolve model → reserve quota → admit →
 * attempt (retries, fallbacks) → finish (settle, usage, metrics).
 */
export { API, RequestContext, stageConfig, type ApiKind, type PinAwareTenancy, type RouterState, type StageConfig } from './context';
export { authenticate } from './authenticate';
export { parse } from './parse';
export { permittedChain, resolveModel } from './resolve-model';
export { reserveQuota } from './reserve';
export { admit } from './admit';
export { attemptUpstream } from './attempt';
export { fail, finish, sendError } from './finish';
