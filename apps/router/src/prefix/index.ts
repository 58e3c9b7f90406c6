import type { RouterPrefixConfig } from '@llmgw/config';
import type { EndpointSource } from '@llmgw/endpoints';
import {
  blockHashes,
  ChatBlockHasher,
  llama3SpanStats,
  llama3TextHeadTokens,
  PrefixIndex,
  preloadLlama3,
  type ChatMessageLike,
  type PromptKey,
} from '@llmgw/prefix';
import type { Logger, Registry } from '@llmgw/observability';
import type { Redis } from 'ioredis';
import type { PickResult, RoutingProfile } from '@llmgw/scheduling';
import { KvSubscriber } from './kv-subscriber';
import { createPrefixMetrics } from './metrics';
import { promptText, promptTokenIds } from './prompt';
import { LoadShare } from './load-share';
import { PrefixShare } from './share';
import { TokenizePool, type KeyOutcome } from './tokenize-pool';

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
  /**
   * The request's prompt key, or undefined when the profile has no prefix scorer or there is no prompt.
   * A promise when its block hashes come from a tokenizer worker (settles within `kv_events.tokenize_timeout`).
   */
  promptFor(kind: ApiKind, body: Record<string, unknown>, model: string, profile: RoutingProfile): PromptKey | undefined | Promise<PromptKey | undefined>;
  /** Resolves once the tokenizer workers have loaded (at once without them); the router does not wait for it. */
  tokenizerReady(): Promise<void>;
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
  const blockOpts = { blockSize: kvCfg.block_size, hashSeed: kvCfg.hash_seed };
  // With workers the tokenizer loads on them while the router already serves (a request waits for it at most tokenize_timeout).
  const pool =
    kvCfg.enabled && kvCfg.tokenize_workers > 0
      ? new TokenizePool({ workers: kvCfg.tokenize_workers, maxQueue: kvCfg.tokenize_queue, timeoutMs: kvCfg.tokenize_timeout, opts: blockOpts, log: deps.log })
      : undefined;
  if (kvCfg.enabled && !pool) {
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
    loadShare: () => load,
    tokenizer: () => pool?.stats,
    spans: () => {
      if (pool) {
        const st = pool.stats;
        return { hit: st.spanHits, miss: st.spanMisses };
      }
      return kvCfg.enabled ? { hit: llama3SpanStats.hits, miss: llama3SpanStats.misses } : undefined;
    },
  });
  // A conversation's earlier turns are hashed once: each request resumes from the chain its previous turn left.
  const chatHasher = pool ? undefined : new ChatBlockHasher(blockOpts);
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
      const key: PromptKey = { text: tree.enabled ? text : '' };
      if (!kvCfg.enabled || !kvModels.has(model)) return key;
      const t0 = performance.now();
      // Token ids are hashed as given (vLLM adds no BOS to them): no tokenizer needed.
      const ids = promptTokenIds(kind, body);
      if (ids || !pool) {
        // On the event loop: token ids (no tokenizer), or every request with tokenize_workers 0.
        let hashes: bigint[];
        if (ids) hashes = blockHashes(ids.slice(0, Math.floor(maxChars / 4)), blockOpts);
        else if (kind === 'chat') hashes = chatHasher!.hashes(body.messages as ChatMessageLike[], maxChars);
        else hashes = blockHashes(llama3TextHeadTokens(full, maxChars), blockOpts);
        metrics.tokenize.observe({ model }, (performance.now() - t0) / 1000);
        return { ...key, blockHashes: hashes };
      }
      const keyed = (o: KeyOutcome): PromptKey => {
        metrics.tokenizeWait.observe({ model }, (performance.now() - t0) / 1000);
        if (!('hashes' in o)) return key;
        metrics.tokenize.observe({ model }, o.ms / 1000);
        return { ...key, blockHashes: o.hashes };
      };
      const out = kind === 'chat' ? pool.chat(body.messages as ChatMessageLike[], maxChars) : pool.text(full, maxChars);
      return out instanceof Promise ? out.then(keyed) : keyed(out);
    },
    tokenizerReady() {
      return pool ? pool.ready() : Promise.resolve();
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
      await pool?.close();
      await load?.close();
      await share?.close();
    },
  };
}
