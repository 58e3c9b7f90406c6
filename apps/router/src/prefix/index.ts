import type { RouterPrefixConfig } from '@llmgw/config';
import type { EndpointSource } from '@llmgw/endpoints';
import { blockHashes, ChatBlockHasher, llama3TextHeadTokens, PrefixIndex, preloadLlama3, type ChatMessageLike, type PromptKey } from '@llmgw/prefix';
import type { Logger, Registry } from '@llmgw/observability';
import type { Redis } from 'ioredis';
import type { PickResult, RoutingProfile } from '@llmgw/scheduling';
import { KvSubscriber } from './kv-subscriber';
import { createPrefixMetrics } from './metrics';
import { promptText, promptTokenIds } from './prompt';
import { LoadShare } from './load-share';
import { PrefixShare } from './share';

export { promptText, promptTokenIds } from './prompt';

import type { ApiKind } from '../api';

/**
 * The router's side of prefix-aware routing (docs/prefix.md tiers 1–2): one
 * PrefixIndex read by every profile's `prefix` scorer, tree inserts shared
 * with the other routers over Redis, KV event subscriptions feeding the
 * precise index, the prompt key of each request, and the decision metrics.
 */
export interface PrefixRouting {
  readonly index: PrefixIndex;
  /** Params for the `prefix` scorer from `prefix.approx_tree` (under each profile's own). */
  readonly scorerParams: Record<string, unknown>;
  /**
   * Starts the KV subscriptions over the endpoint source (and follows its changes), and the tree
   * and load shares; `local` is this router's in-flight count per replica (for the load share).
   */
  attach(source: EndpointSource, local?: () => Iterable<[string, number]>): void;
  /** This router's in-flight counts changed (a request went upstream or ended): the load share tells the others. */
  inflightChanged(): void;
  /** The other routers' in-flight requests to `replica` (0 without the load share). */
  peerInflight(replica: string): number;
  /** The request's prompt key, or undefined when the profile has no prefix scorer or there is no prompt. */
  promptFor(kind: ApiKind, body: Record<string, unknown>, model: string, profile: RoutingProfile): PromptKey | undefined;
  /** Counts one scheduling outcome of a profile with a prefix scorer. */
  observe(model: string, profile: RoutingProfile, pick: PickResult): void;
  close(): Promise<void>;
}

export function createPrefixRouting(
  cfg: { prefix: RouterPrefixConfig },
  deps: { log: Logger; registry: Registry; share?: { publisher: Redis; subscriber: Redis } },
): PrefixRouting {
  const tree = cfg.prefix.approx_tree;
  const kvCfg = cfg.prefix.kv_events;
  const index = new PrefixIndex({
    tree: { chunkChars: tree.chunk_chars, maxTreeSize: tree.max_tree_size, evictionIntervalMs: tree.eviction_interval },
    pendingMs: kvCfg.pending_window,
  });
  let share: PrefixShare | undefined;
  let load: LoadShare | undefined;
  let closed = false;
  let subscriber: KvSubscriber | undefined;
  let source: EndpointSource | undefined;
  let unsubscribe: (() => void) | undefined;
  // Models whose requests are tokenized: configured, else every model with a KV-publishing endpoint.
  let kvModels = new Set<string>(kvCfg.models);
  if (kvCfg.enabled) {
    // Seconds, once, before the router listens: never on a request.
    const t0 = performance.now();
    preloadLlama3();
    deps.log.info({ ms: Math.round(performance.now() - t0) }, 'prefix: llama3 tokenizer loaded for the KV index');
  }
  const metrics = createPrefixMetrics(deps.registry, {
    kvStates: () => {
      const counts = new Map<string, number>();
      for (const e of source?.all() ?? []) {
        const st = e.kvEvents ? index.kv.state(e.id) : undefined;
        if (st) counts.set(st, (counts.get(st) ?? 0) + 1);
      }
      return counts;
    },
    kvSequences: () =>
      (source?.all() ?? [])
        .filter((e) => e.kvEvents && index.kv.expected(e.id) !== undefined)
        .map((e) => [e.id, index.kv.expected(e.id)! - 1] as [string, number]),
    treeEntries: () => index.trees.entryCount,
    shareStats: () => share?.stats,
  });
  const blockOpts = { blockSize: kvCfg.block_size, hashSeed: kvCfg.hash_seed };
  // A conversation's earlier turns are hashed once: each request resumes from the chain its previous turn left.
  const chatHasher = new ChatBlockHasher(blockOpts);
  const hasPrefix = (p: RoutingProfile): boolean => p.scorers.some((s) => s.scorer.type === 'prefix-scorer');

  return {
    index,
    scorerParams: {
      cache_threshold: tree.cache_threshold,
      balance_abs_threshold: tree.balance_abs_threshold,
      balance_rel_threshold: tree.balance_rel_threshold,
      balance_fair_factor: tree.balance_fair_factor,
    },
    attach(src, local) {
      source = src;
      if (tree.enabled && deps.share) {
        // Until Redis answers, inserts stay local (counted as dropped).
        share = new PrefixShare({ ...deps.share, keyPrefix: tree.share.key_prefix, log: deps.log, apply: (ins) => index.applyRemote(ins) });
        const s = share;
        index.onInsert = (ins) => s.publish(ins);
        void s.open().then(() => {
          if (closed) void s.close();
        });
        if (tree.share.load && local) {
          const l = (load = new LoadShare({ ...deps.share, keyPrefix: tree.share.key_prefix, origin: s.origin, log: deps.log, local }));
          void l.open().then(() => {
            if (closed) void l.close();
          });
        }
      }
      const refresh = (): void => {
        const all = src.all();
        const live = new Set(all.map((e) => e.id));
        for (const id of index.trees.models().flatMap((m) => index.trees.tree(m)!.tenants())) if (!live.has(id)) index.removeReplica(id);
        if (kvCfg.enabled) {
          if (kvCfg.models.length === 0) kvModels = new Set(all.filter((e) => e.kvEvents).map((e) => e.model));
          subscriber ??= new KvSubscriber({ index: index.kv, log: deps.log, replayTimeoutMs: kvCfg.replay_timeout });
          subscriber.sync(all);
        }
      };
      unsubscribe = src.subscribe(refresh);
      refresh();
    },
    promptFor(kind, body, model, profile) {
      if (!hasPrefix(profile) || (kind !== 'chat' && kind !== 'completions')) return undefined;
      const full = promptText(kind, body);
      if (full === undefined) return undefined;
      // Only the head of a huge prompt is keyed (prefix.max_prompt_chars).
      const maxChars = cfg.prefix.max_prompt_chars;
      const text = full.length > maxChars ? full.slice(0, maxChars) : full;
      let hashes: bigint[] | undefined;
      if (kvCfg.enabled && kvModels.has(model)) {
        const t0 = performance.now();
        // Token ids are hashed as given (vLLM adds no BOS to them): no tokenizer needed.
        const ids = promptTokenIds(kind, body);
        if (kind === 'chat') hashes = chatHasher.hashes(body.messages as ChatMessageLike[], maxChars);
        else hashes = blockHashes(ids ? ids.slice(0, Math.floor(maxChars / 4)) : llama3TextHeadTokens(full, maxChars), blockOpts);
        metrics.tokenize.observe({ model }, (performance.now() - t0) / 1000);
      }
      return { text: tree.enabled ? text : '', ...(hashes ? { blockHashes: hashes } : {}) };
    },
    inflightChanged() {
      load?.changed();
    },
    peerInflight(replica) {
      return load ? load.peerInflight(replica) : 0;
    },
    observe(model, profile, pick) {
      if (pick.kind === 'picked') {
        if (!pick.prefix) return;
        metrics.decisions.inc({ model, decision: pick.prefix.decision });
        metrics.matchRatio.observe({ model }, pick.prefix.matchRatio);
      } else if (hasPrefix(profile)) {
        metrics.decisions.inc({ model, decision: 'no_healthy_worker' });
      }
    },
    async close() {
      closed = true;
      unsubscribe?.();
      await subscriber?.close();
      await load?.close();
      await share?.close();
    },
  };
}
