import { z } from 'zod';
import { parsePluginParams, type PluginFactory } from '../registry';
import type { EndpointView, SchedRequest, Scorer } from '../types';

const schema = z
  .object({
    /**
     * Adapters one replica holds at once (vLLM --max-loras; the catalog's
     * max_loaded_adapters). The engine's own `max_lora` label, when scraped, wins.
     */
    max_loaded_adapters: z.number().int().min(1).max(256).default(1),
    /** A replica with the adapter loaded counts as saturated at this many requests in flight per batch slot learned (0–1 of batchCapacity). */
    saturation: z.number().min(0.05).max(1).default(0.9),
    /** A replica with this many requests queued at the engine is saturated too. */
    saturation_waiting: z.number().int().min(1).default(4),
    /** Scores: adapter loaded; loaded but saturated; a free adapter slot; must evict an idle adapter; every slot busy with running adapters. */
    loaded_score: z.number().min(0).max(1).default(1),
    saturated_score: z.number().min(0).max(1).default(0.45),
    free_slot_score: z.number().min(0).max(1).default(0.6),
    evict_score: z.number().min(0).max(1).default(0.3),
    blocked_score: z.number().min(0).max(1).default(0.05),
    /** Score for everyone when the request names no adapter. */
    neutral_score: z.number().min(0).max(1).default(0.5),
  })
  .strict();
export type LoraScorerParams = z.output<typeof schema>;

/**
 * LoRA adapter affinity (docs/models.md, "Adapters"). Which adapters a
 * replica holds comes from two places: the engine's `vllm:lora_requests_info`
 * (running and waiting adapters: certainly loaded) and this router's own
 * record of the adapters it sent there most recently — vLLM keeps up to
 * `max_loras` adapters loaded least recently used, and the metric forgets an
 * adapter as soon as its requests finish. A replica holding the adapter
 * scores highest; when it saturates, a replica with a free slot outscores it,
 * so a hot adapter spreads; evicting an idle adapter is preferred over
 * waiting behind slots whose adapters are all running.
 */
export class LoraScorer implements Scorer {
  readonly type = 'lora-scorer';
  /** Per endpoint: adapters sent there, most recent last. */
  private readonly recent = new Map<string, string[]>();

  constructor(
    readonly name: string,
    readonly params: LoraScorerParams,
  ) {}

  /** Adapters the replica is believed to hold: the engine's running/waiting, then this router's most recent. */
  loaded(ep: EndpointView): string[] {
    const max = this.slots(ep);
    const fromEngine = [...(ep.stats?.lora?.running ?? []), ...(ep.stats?.lora?.waiting ?? [])];
    const out = [...new Set(fromEngine)];
    const mine = this.recent.get(ep.id) ?? [];
    for (let i = mine.length - 1; i >= 0 && out.length < max; i--) if (!out.includes(mine[i])) out.push(mine[i]);
    return out;
  }

  score(req: SchedRequest, eps: readonly EndpointView[]): Map<string, number> {
    const p = this.params;
    const out = new Map<string, number>();
    for (const ep of eps) {
      if (!req.adapter) {
        out.set(ep.id, p.neutral_score);
        continue;
      }
      const loaded = this.loaded(ep);
      const running = new Set(ep.stats?.lora?.running ?? []);
      let s: number;
      if (loaded.includes(req.adapter)) s = this.saturated(ep) ? p.saturated_score : p.loaded_score;
      else if (loaded.length < this.slots(ep)) s = p.free_slot_score;
      else if (running.size >= this.slots(ep)) s = p.blocked_score;
      else s = p.evict_score;
      out.set(ep.id, s);
    }
    return out;
  }

  picked(req: SchedRequest, ep: EndpointView): void {
    if (!req.adapter) return;
    const list = (this.recent.get(ep.id) ?? []).filter((a) => a !== req.adapter);
    list.push(req.adapter);
    this.recent.set(ep.id, list.slice(-this.slots(ep)));
  }

  private slots(ep: EndpointView): number {
    const fromEngine = ep.stats?.lora?.maxLora ?? 0;
    return fromEngine > 0 ? fromEngine : this.params.max_loaded_adapters;
  }

  private saturated(ep: EndpointView): boolean {
    if ((ep.stats?.waiting ?? 0) >= this.params.saturation_waiting) return true;
    const cap = ep.batchCapacity ?? 0;
    return cap > 0 && ep.inflight >= Math.max(1, Math.floor(cap * this.params.saturation));
  }
}

export const loraScorerFactory: PluginFactory<'scorer'> = {
  kind: 'scorer',
  description: 'LoRA adapter affinity: replicas holding the adapter first, a hot adapter spread when one saturates, max_loaded_adapters respected',
  create: (name, params) => new LoraScorer(name, parsePluginParams('lora-scorer', name, schema, params)),
};
