import { request, type Dispatcher } from 'undici';
import type { Logger } from '@llmgw/observability';
import type { EndpointView } from '@llmgw/scheduling';

/**
 * LoRA adapters through the router (docs/models.md, "Adapters"): a request
 * names an adapter as `model: "<base>:<adapter>"` or by the adapter's own
 * name; it is served by the base model's replicas — for allowlists, limits,
 * budgets, prices and admission it is a request for the base model — and
 * goes out in each engine's own form.
 */

/** An adapter of a base model: its llama.cpp id (position in the catalog's list), scale, and (optionally) its directory on the engine host. */
export interface AdapterRef {
  readonly base: string;
  readonly name: string;
  readonly id: number;
  readonly scale: number;
  readonly path?: string;
}

/** Where a router reading the placement-scheduler's catalog view learns adapters. */
export interface PlacementAdapters {
  adapterOf(name: string): AdapterRef | undefined;
  adapters(): AdapterRef[];
}

/**
 * The adapter `name` names: an adapter's own name, or `<base>:<adapter>` where `<base>` resolves
 * (name or alias) to the adapter's base model; undefined otherwise.
 */
export function adapterOfName(name: string, byName: (n: string) => AdapterRef | undefined, resolve: (n: string) => string | undefined): AdapterRef | undefined {
  const own = byName(name);
  if (own) return own;
  const i = name.lastIndexOf(':');
  if (i <= 0 || i === name.length - 1) return undefined;
  const ref = byName(name.slice(i + 1));
  return ref && resolve(name.slice(0, i)) === ref.base ? ref : undefined;
}

/**
 * The body in the engine's form: vLLM serves an adapter as a model of its own (`model: "<adapter>"`);
 * SGLang serves the base model with the adapter the request's `lora_path` names (its name in
 * `--lora-paths`); llama.cpp serves the base model and applies the adapter the request's `lora`
 * names, at the catalog's scale (every other adapter is at 0 for that request). Each form clears
 * the others' fields, as a retry may go to another engine.
 */
export function rewriteForAdapter(body: Record<string, unknown>, adapter: AdapterRef, engine: EndpointView['engine']): void {
  delete body.lora;
  delete body.lora_path;
  if (engine === 'llamacpp') {
    body.model = adapter.base;
    body.lora = [{ id: adapter.id, scale: adapter.scale }];
  } else if (engine === 'sglang') {
    body.model = adapter.base;
    body.lora_path = adapter.name;
  } else {
    body.model = adapter.name;
  }
}

/**
 * Registers adapters with vLLM replicas at run time (`POST /v1/load_lora_adapter`, which vLLM
 * accepts with `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`) before the first request naming one, for
 * adapters whose `path` the router's config gives. Adapters the node-agent passed with
 * `--lora-modules` are registered at start and need nothing. Registering only names the adapter:
 * the engine loads it into a slot when a request uses it. Once per replica and adapter, again
 * when the replica no longer knows it (`lost`); a failed registration is logged and tried again by
 * the next request (this one goes on: the engine answers for itself whether it knows the adapter).
 */
export class AdapterRegistry {
  private readonly done = new Map<string, Promise<boolean>>();

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly log: Logger,
    private readonly timeoutMs = 10_000,
  ) {}

  async ensure(ep: Pick<EndpointView, 'id' | 'url' | 'engine'>, adapter: AdapterRef, authorization?: string): Promise<void> {
    if (ep.engine !== 'vllm' || adapter.path === undefined) return;
    const key = `${ep.id}\u0000${adapter.name}`;
    let p = this.done.get(key);
    if (!p) {
      p = this.register(ep, adapter, adapter.path, authorization);
      this.done.set(key, p);
    }
    if (!(await p) && this.done.get(key) === p) this.done.delete(key);
  }

  /**
   * The replica answered a request for `adapter` with "model not found" although the router had
   * registered it there (the engine restarted since): forgets the registration and says so, so the
   * caller registers it again and resends.
   */
  lost(ep: Pick<EndpointView, 'id' | 'engine'>, adapter: AdapterRef, err: { code: string }): boolean {
    if (ep.engine !== 'vllm' || adapter.path === undefined || err.code !== 'LLMGW_ERR_MODEL_NOT_FOUND') return false;
    return this.done.delete(`${ep.id}\u0000${adapter.name}`);
  }

  private async register(ep: Pick<EndpointView, 'id' | 'url'>, adapter: AdapterRef, path: string, authorization?: string): Promise<boolean> {
    try {
      const r = await request(`${ep.url}/v1/load_lora_adapter`, {
        method: 'POST',
        dispatcher: this.dispatcher,
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ lora_name: adapter.name, lora_path: path }),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const text = await r.body.text();
      // vLLM answers 400 "… has already been loaded" for a name it knows: registered either way.
      if (r.statusCode === 200 || (r.statusCode === 400 && /already been loaded/.test(text))) return true;
      this.log.warn({ endpoint: ep.id, adapter: adapter.name, status: r.statusCode }, 'could not register a LoRA adapter with the engine');
      return false;
    } catch (e) {
      this.log.warn({ endpoint: ep.id, adapter: adapter.name, err: (e as Error).message }, 'could not register a LoRA adapter with the engine');
      return false;
    }
  }
}
