import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { PREFIX_DECISIONS } from '@llmgw/scheduling';

/** Prefix-routing metrics (docs/prefix.md#metrics); names and labels are the contract. */
export function createPrefixMetrics(
  registry: Registry,
  src: {
    kvStates(): Iterable<[state: string, n: number]>;
    kvSequences(): Iterable<[replica: string, seq: number]>;
    treeEntries(): number;
    shareStats(): { sent: number; received: number; dropped: number } | undefined;
  },
) {
  const reg = { registers: [registry] };
  const share = new Counter({
    name: 'llmgw_prefix_share_messages_total',
    help: 'Tier-1 tree inserts shared with other routers, by direction (sent, received, dropped).',
    labelNames: ['direction'],
    ...reg,
    collect() {
      const s = src.shareStats();
      if (!s) return;
      this.reset();
      this.inc({ direction: 'sent' }, s.sent);
      this.inc({ direction: 'received' }, s.received);
      this.inc({ direction: 'dropped' }, s.dropped);
    },
  });
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
