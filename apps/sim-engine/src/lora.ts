/**
 * LoRA adapters as vLLM serves them, for routing tests (docs/sim-engine.md):
 * adapters are registered with `POST /v1/load_lora_adapter`, and at most
 * `--max-loras` of them sit in GPU slots at once. A request for an adapter
 * not in a slot loads it first (`--lora-load-ms`), evicting the least
 * recently used adapter no running request uses; when every slot is held by
 * running adapters the request waits. `loads` counts slot loads, the number a
 * router's adapter affinity is meant to keep low.
 */
export class LoraSlots {
  private readonly registered = new Map<string, string>();
  /** Adapters in GPU slots, least recently used first. */
  private readonly slots: string[] = [];
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, number>();
  private wakers: Array<() => void> = [];
  loads = 0;
  /** Requests that ran with each adapter. */
  readonly served = new Map<string, number>();

  constructor(
    readonly maxLoras: number,
    private readonly loadMs: number,
  ) {}

  register(name: string, path: string): boolean {
    const fresh = !this.registered.has(name);
    this.registered.set(name, path);
    return fresh;
  }

  unregister(name: string): boolean {
    const i = this.slots.indexOf(name);
    if (i >= 0 && !this.running.get(name)) this.slots.splice(i, 1);
    return this.registered.delete(name);
  }

  has(name: string): boolean {
    return this.registered.has(name);
  }

  list(): Array<{ name: string; path: string }> {
    return [...this.registered].map(([name, path]) => ({ name, path }));
  }

  /** Resolves once the adapter is in a slot and counted as running. */
  async acquire(name: string): Promise<void> {
    bump(this.waiting, name, 1);
    try {
      for (;;) {
        const at = this.slots.indexOf(name);
        if (at >= 0) {
          this.slots.splice(at, 1);
          this.slots.push(name);
          break;
        }
        if (this.slots.length >= this.maxLoras) {
          const victim = this.slots.findIndex((a) => !this.running.get(a));
          if (victim < 0) {
            await new Promise<void>((r) => this.wakers.push(r));
            continue;
          }
          this.slots.splice(victim, 1);
        }
        this.slots.push(name);
        this.loads++;
        // The slot is held (as running) while the adapter loads.
        bump(this.running, name, 1);
        await new Promise((r) => setTimeout(r, this.loadMs));
        bump(this.running, name, -1);
        break;
      }
    } finally {
      bump(this.waiting, name, -1);
    }
    bump(this.running, name, 1);
    bump(this.served, name, 1);
  }

  release(name: string): void {
    bump(this.running, name, -1);
    const w = this.wakers;
    this.wakers = [];
    for (const f of w) f();
  }

  /** vLLM's `vllm:lora_requests_info` labels. */
  info(): { maxLora: number; running: string[]; waiting: string[] } {
    return { maxLora: this.maxLoras, running: [...this.running.keys()], waiting: [...this.waiting.keys()] };
  }
}

function bump(m: Map<string, number>, k: string, d: number): void {
  const v = (m.get(k) ?? 0) + d;
  if (v > 0) m.set(k, v);
  else m.delete(k);
}
