import { MemoryEndpointHub } from '@llmgw/endpoints';
import { MemoryCatalogView } from './catalog-view-memory';
import { MemoryLeaderLock } from './leader-lock-memory';
import { MemoryTargetStore } from './target-store';

/**
 * The shared state of the services of one process, by name: what Redis holds
 * under one key prefix when they run apart. A service whose config says
 * `kind: memory` (router and admission `endpoint_source`, the
 * placement-scheduler's `memory` block) with a given `key_prefix` uses the
 * state of that name; every service of the process naming the same prefix
 * shares it. `llmgw up` runs the whole control plane this way without Redis.
 * It lives as long as the process (as Redis keys outlive a restart of one
 * service); nothing here crosses a process boundary.
 */
export interface InProcessState {
  /** Endpoint publication: the placement-scheduler writes, routers and admission read (`.source()`). */
  readonly endpoints: MemoryEndpointHub;
  /** The catalog view and demand: the scheduler writes and reads demand, routers read (`.reader()`) and touch. */
  readonly catalog: MemoryCatalogView;
  /** Operator targets. */
  readonly targets: MemoryTargetStore;
  /** Leader locks (names as in Redis: `placement-scheduler`, `admission`). */
  readonly lock: MemoryLeaderLock;
}

// On globalThis, so that two copies of this module in one process (two bundles) still share one registry.
const REGISTRY = Symbol.for('llmgw.in-process-state');
const g = globalThis as unknown as { [REGISTRY]?: Map<string, InProcessState> };

function registry(): Map<string, InProcessState> {
  return (g[REGISTRY] ??= new Map());
}

/** The in-process state named `name` (a key prefix), made on first use. */
export function inProcessState(name: string): InProcessState {
  const r = registry();
  let s = r.get(name);
  if (!s) {
    s = { endpoints: new MemoryEndpointHub(), catalog: new MemoryCatalogView(), targets: new MemoryTargetStore(), lock: new MemoryLeaderLock() };
    r.set(name, s);
  }
  return s;
}

/** Forgets the state named `name` (tests; `llmgw up` when it stops). */
export function dropInProcessState(name: string): void {
  registry().delete(name);
}
