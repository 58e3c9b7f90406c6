import { LlmgwError } from '@llmgw/errors';
import { CachedEndpointList } from './endpoint-list';
import type { EndpointAuth, EndpointInfo, KvEventsAddress, SchedulingPolicy } from './types';
import { ENGINE_DIALECTS, isEngineDialect, type EngineDialect } from '@llmgw/contracts';

export { groupByModel } from './endpoint-list';

/** Fields of a static endpoint as config or a flag gives them; defaults filled in. */
export interface StaticEndpointInput {
  name?: string;
  id?: string;
  url: string;
  model: string;
  engine?: EngineDialect;
  pool?: string;
  weight?: number;
  priority?: number;
  draining?: boolean;
  /** The engine's --scheduling-policy (config key `scheduling_policy`). */
  scheduling_policy?: SchedulingPolicy;
  /** The engine's batch slots (config key `max_num_seqs`). */
  max_num_seqs?: number;
  /** Admission's target waiting per replica for this endpoint (endpoint record `target_waiting`). */
  target_waiting?: number;
  /** KV event sockets (config form `kv_events: { endpoint, replay_endpoint }` is accepted too). */
  kvEvents?: KvEventsAddress;
  kv_events?: { endpoint: string; replay_endpoint?: string };
  /** `replica-key`: the engine wants the replica's derived secret (published endpoints). */
  auth?: EndpointAuth;
  /** A static endpoint's API key, as config loading read it from `api_key_file`. */
  apiKey?: string;
}

const POLICIES: readonly SchedulingPolicy[] = ['fcfs', 'priority'];

export function normaliseEndpoint(e: StaticEndpointInput): EndpointInfo {
  const id = e.id ?? e.name;
  if (!id) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `endpoint ${e.url} has no name`);
  return Object.freeze({
    id,
    url: e.url.replace(/\/+$/, ''),
    model: e.model,
    engine: e.engine ?? 'vllm',
    pool: e.pool ?? 'default',
    priority: e.priority ?? 0,
    weight: e.weight ?? 100,
    draining: e.draining ?? false,
    schedulingPolicy: e.scheduling_policy ?? 'fcfs',
    ...(e.max_num_seqs !== undefined && Number.isInteger(e.max_num_seqs) && e.max_num_seqs > 0 ? { maxNumSeqs: e.max_num_seqs } : {}),
    ...(e.target_waiting !== undefined && Number.isFinite(e.target_waiting) && e.target_waiting > 0 ? { targetWaiting: e.target_waiting } : {}),
    ...kvEventsOf(e),
    ...(e.auth === 'replica-key' ? { auth: e.auth } : {}),
    ...(e.apiKey ? { apiKey: e.apiKey } : {}),
  });
}

function kvEventsOf(e: StaticEndpointInput): { kvEvents?: KvEventsAddress } {
  const k = e.kvEvents ?? (e.kv_events ? { endpoint: e.kv_events.endpoint, replayEndpoint: e.kv_events.replay_endpoint } : undefined);
  if (!k) return {};
  return { kvEvents: Object.freeze(k.replayEndpoint ? { endpoint: k.endpoint, replayEndpoint: k.replayEndpoint } : { endpoint: k.endpoint }) };
}

/**
 * Parses one `--endpoint name=url=model[,engine=E][,pool=P][,weight=W][,priority=N][,scheduling_policy=fcfs|priority][,max_num_seqs=N]`
 * flag. The URL may itself contain `=` only in its query, so the first `=`
 * ends the name and the last `=` before the first `,` starts the model.
 */
/** `--endpoint` flags as entries of a config file's `endpoints` list (what the config schemas take). */
export function endpointFlagsToConfig(
  flags: readonly string[],
): Array<
  Required<Omit<StaticEndpointInput, 'id' | 'kvEvents' | 'kv_events' | 'max_num_seqs' | 'target_waiting' | 'auth' | 'apiKey'>> &
    Pick<StaticEndpointInput, 'kv_events' | 'max_num_seqs'>
> {
  return flags.map((f) => {
    const e = parseEndpointFlag(f);
    return {
      name: e.id,
      url: e.url,
      model: e.model,
      engine: e.engine,
      pool: e.pool,
      weight: e.weight,
      priority: e.priority,
      draining: e.draining,
      scheduling_policy: e.schedulingPolicy ?? 'fcfs',
      ...(e.maxNumSeqs !== undefined ? { max_num_seqs: e.maxNumSeqs } : {}),
      ...(e.kvEvents
        ? { kv_events: { endpoint: e.kvEvents.endpoint, ...(e.kvEvents.replayEndpoint ? { replay_endpoint: e.kvEvents.replayEndpoint } : {}) } }
        : {}),
    };
  });
}

export function parseEndpointFlag(flag: string): EndpointInfo {
  const [head, ...opts] = flag.split(',');
  const first = head.indexOf('=');
  const last = head.lastIndexOf('=');
  if (first <= 0 || last === first || last === head.length - 1) {
    throw new LlmgwError(
      'LLMGW_ERR_INVALID_ARGUMENT',
      `--endpoint "${flag}": expected name=url=model[,engine=vllm|sglang|llamacpp][,pool=P][,weight=W][,priority=N][,scheduling_policy=fcfs|priority][,max_num_seqs=N]`,
    );
  }
  const name = head.slice(0, first);
  const url = head.slice(first + 1, last);
  const model = head.slice(last + 1);
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": "${url}" is not an http(s) URL`);
  const input: StaticEndpointInput = { name, url, model };
  for (const opt of opts) {
    const eq = opt.indexOf('=');
    const k = eq > 0 ? opt.slice(0, eq) : opt;
    const v = eq > 0 ? opt.slice(eq + 1) : '';
    switch (k) {
      case 'engine':
        if (!isEngineDialect(v))
          throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": engine must be one of ${ENGINE_DIALECTS.join(', ')}`);
        input.engine = v;
        break;
      case 'pool':
        if (!v) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": empty pool`);
        input.pool = v;
        break;
      case 'weight': {
        const w = Number(v);
        if (!Number.isFinite(w) || w <= 0) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": weight must be a positive number`);
        input.weight = w;
        break;
      }
      case 'priority': {
        const p = Number(v);
        if (!Number.isInteger(p)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": priority must be an integer`);
        input.priority = p;
        break;
      }
      case 'scheduling_policy':
        if (!POLICIES.includes(v as SchedulingPolicy))
          throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": scheduling_policy must be one of ${POLICIES.join(', ')}`);
        input.scheduling_policy = v as SchedulingPolicy;
        break;
      case 'draining':
        input.draining = v === '' || v === 'true';
        break;
      case 'max_num_seqs': {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": max_num_seqs must be an integer ≥ 1`);
        input.max_num_seqs = n;
        break;
      }
      case 'kv':
      case 'kv_replay':
        if (!/^tcp:\/\/[^\s]+:\d+$/.test(v)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": ${k} must be tcp://host:port`);
        if (k === 'kv') input.kvEvents = { ...input.kvEvents, endpoint: v };
        else input.kvEvents = { endpoint: input.kvEvents?.endpoint ?? '', replayEndpoint: v };
        break;
      default:
        throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": unknown option "${k}"`);
    }
  }
  if (input.kvEvents && !input.kvEvents.endpoint)
    throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `--endpoint "${flag}": kv_replay needs kv=tcp://host:port too`);
  return normaliseEndpoint(input);
}

/**
 * Endpoints from the config file and `--endpoint` flags. Fixed at start;
 * `set()` replaces the list (tests, config reload) and notifies subscribers.
 */
export class StaticEndpointSource extends CachedEndpointList {
  constructor(endpoints: ReadonlyArray<StaticEndpointInput | EndpointInfo> = []) {
    super();
    this.replace(normaliseAll(endpoints), false);
  }

  set(endpoints: ReadonlyArray<StaticEndpointInput | EndpointInfo>): void {
    this.replace(normaliseAll(endpoints), true);
  }
}

function normaliseAll(endpoints: ReadonlyArray<StaticEndpointInput | EndpointInfo>): EndpointInfo[] {
  const seen = new Set<string>();
  const list = endpoints.map((e) => normaliseEndpoint(e as StaticEndpointInput));
  for (const e of list) {
    if (seen.has(e.id)) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `duplicate endpoint name "${e.id}"`);
    seen.add(e.id);
  }
  return list;
}
