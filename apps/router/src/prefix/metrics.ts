import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { PREFIX_DECISIONS } from '@llmgw/scheduling';
import type { TokenizePoolStats } from './tokenize-pool';

/** What the load-share metrics read (a `LoadShare`). */
export interface LoadShareView {
  readonly stats: { sent: number; received: number; dropped: number; expired: number };
  readonly peers: number;
  readonly peerTotal: number;
  staleness(): number;
}

/** Prefix-routing metrics (docs/prefix.md#metrics); names and labels are the contract. */
export function createPrefixMetrics(
  registry: Registry,
  src: {
    kvStates(): Iterable<[state: string, n: number]>;
    kvSequences(): Iterable<[replica: string, seq: number]>;
    treeEntries(): number;
    shareStats(): { sent: number; received: number; dropped: number } | undefined;
    loadShare(): LoadShareView | undefined;
    tokenizer(): TokenizePoolStats | undefined;
    /** The per-message token cache's counters (the workers' or, without workers, this thread's). */
    spans(): { hit: number; miss: number } | undefined;
  },
) {
  const reg = { registers: [registry] };
  const counterFrom = <K extends string>(name: string, help: string, label: string, read: () => Record<K, number> | undefined): Counter => {
    return new Counter({
      name,
      help,
      labelNames: [label],
      ...reg,
      collect() {
        const v = read();
        if (!v) return;
        this.reset();
        for (const [k, n] of Object.entries(v) as [K, number][]) this.inc({ [label]: k }, n);
      },
    });
  };
  const gaugeFrom = (name: string, help: string, read: () => number | undefined): Gauge => {
    return new Gauge({
      name,
      help,
      ...reg,
      collect() {
        const v = read();
        if (v !== undefined) this.set(v);
      },
    });
  };
  const share = counterFrom(
    'llmgw_prefix_share_messages_total',
    'Tier-1 tree inserts shared with other routers, by direction (sent, received, dropped).',
    'direction',
    () => {
      const st = src.shareStats();
      return st && { sent: st.sent, received: st.received, dropped: st.dropped };
    },
  );
  // The load share (docs/prefix.md#one-view-of-load-across-routers): present only while it runs.
  const ls = () => src.loadShare();
  counterFrom(
    'llmgw_prefix_load_share_messages_total',
    'Load-share messages (in-flight counts per replica) by direction (sent, received, dropped).',
    'direction',
    () => {
      const s = ls()?.stats;
      return s && { sent: s.sent, received: s.received, dropped: s.dropped };
    },
  );
  new Counter({
    name: 'llmgw_prefix_load_share_expired_total',
    help: 'Other routers forgotten after the load-share TTL without their closing message (crashed, partitioned).',
    ...reg,
    collect() {
      const st = ls()?.stats;
      if (!st) return;
      this.reset();
      this.inc(st.expired);
    },
  });
  gaugeFrom('llmgw_prefix_load_share_peers', 'Other routers whose in-flight counts this router adds to its own.', () => ls()?.peers);
  gaugeFrom(
    'llmgw_prefix_load_share_peer_inflight',
    "Sum of the other routers' in-flight requests over every replica, as they last said.",
    () => ls()?.peerTotal,
  );
  gaugeFrom('llmgw_prefix_load_share_staleness_seconds', 'Age of the oldest load-share message whose counts are in use (0 with none).', () => {
    const l = ls();
    return l && l.staleness() / 1000;
  });
  // The tokenizer pool (docs/prefix.md#block-hashes): present only with kv_events and tokenize_workers > 0.
  const tp = () => src.tokenizer();
  counterFrom(
    'llmgw_prefix_tokenize_spans_total',
    'Chat messages keyed for tier 2, by whether their token ids came from the per-message cache (hit, miss).',
    'result',
    src.spans,
  );
  counterFrom(
    'llmgw_prefix_tokenize_fallbacks_total',
    'Requests keyed for tier 1 only because the tokenizer workers could not answer in time (loading, saturated, timeout, error).',
    'reason',
    () => tp()?.fallbacks,
  );
  gaugeFrom(
    'llmgw_prefix_tokenize_workers_ready',
    'Tokenizer workers with the tokenizer loaded (until then requests are keyed for tier 1).',
    () => tp()?.ready,
  );
  gaugeFrom('llmgw_prefix_tokenize_queue', 'Requests waiting on or being keyed by the tokenizer workers.', () => tp()?.queued);
  return {
    decisions: new Counter({
      name: 'llmgw_prefix_decisions_total',
      help: `Prefix scorer decisions: ${PREFIX_DECISIONS.join(' | ')}.`,
      labelNames: ['model', 'decision'],
      ...reg,
    }),
    matchRatio: new Histogram({
      name: 'llmgw_prefix_match_ratio',
      help: "Best candidate's matched fraction of the prompt per decision.",
      labelNames: ['model'],
      buckets: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1],
      ...reg,
    }),
    tokenizeWait: new Histogram({
      name: 'llmgw_prefix_tokenize_wait_seconds',
      help: "A request's wait for its block hashes from the tokenizer workers (bounded by kv_events.tokenize_timeout).",
      labelNames: ['model'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
      ...reg,
    }),
    tokenize: new Histogram({
      name: 'llmgw_prefix_tokenize_seconds',
      help: 'Tokenizing and block-hashing one request for the tier-2 index (models with kv_events only).',
      labelNames: ['model'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
      ...reg,
    }),
    treeEntries: new Gauge({
      name: 'llmgw_prefix_tree_entries',
      help: 'Tier-1 tree size: (chunk, replica) entries over all models.',
      ...reg,
      collect() {
        this.set(src.treeEntries());
      },
    }),
    kvReplicas: new Gauge({
      name: 'llmgw_prefix_kv_replicas',
      help: 'KV-event-publishing replicas by index state (synced, syncing, replaying, dropped).',
      labelNames: ['state'],
      ...reg,
      collect() {
        this.reset();
        for (const [state, n] of src.kvStates()) this.set({ state }, n);
      },
    }),
    kvSequence: new Gauge({
      name: 'llmgw_prefix_kv_sequence',
      help: 'Last KV event batch sequence number applied to the index, per replica (-1: none yet).',
      labelNames: ['replica'],
      ...reg,
      collect() {
        this.reset();
        for (const [replica, seq] of src.kvSequences()) this.set({ replica }, seq);
      },
    }),
    share,
  };
}
