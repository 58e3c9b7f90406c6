const quick = process.argv.includes('--quick');
/** Also print the summary as one JSON line at the end (`{"rr/1": {hit, ceiling, p99ratio}, …}`, percentages), for the CI test; skips the keying-cost table. */
export const JSON_OUT = process.argv.includes('--json');
export const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
export const CONVERSATIONS = Number(arg('conversations') ?? (quick ? 12 : 48));
export const CONCURRENCY = Number(arg('concurrency') ?? (quick ? 8 : 16));
export const TURNS = Number(arg('turns') ?? (quick ? 4 : 12));
export const GROUPS = Number(arg('groups') ?? (quick ? 8 : 24));
export const SYSTEM_WORDS = Number(arg('system-words') ?? 300);
export const QUESTION_WORDS = Number(arg('question-words') ?? 36);
/** Popularity of the groups: 0 = conversation c belongs to group c mod groups; s > 0 = Zipf(s) (group k drawn with weight 1/(k+1)^s). */
export const ZIPF = Number(arg('zipf') ?? 0);
/** prefix.approx_tree.balance_abs_threshold for tiers 1 and 2 (the router's default when absent). */
export const BALANCE_ABS = arg('balance-abs');
/** prefix.approx_tree.balance_fair_factor (0: the guard's fair-share test off, as before issue 23). */
export const BALANCE_FAIR = arg('balance-fair');
/** `--no-load-share`: prefix.approx_tree.share.load off (each router sees its own in-flight requests only). */
export const LOAD_SHARE = !process.argv.includes('--no-load-share');
export const CACHE_BLOCKS = Number(arg('cache-blocks') ?? 200);
export const RESET_EVERY = Number(arg('reset-every') ?? 0);
export const ROUTER_RESTART_EVERY = Number(arg('restart-routers-every') ?? 0);
export const BUFFER_STEPS = Number(arg('buffer-steps') ?? 10_000);
/** prefix.kv_events.pending_window for tier 2 (the router's default when absent). */
export const PENDING_WINDOW = arg('pending-window');
/**
 * The routers' Redis is down (ARCHITECTURE: "Redis lost → single-router
 * behaviour"): the tree share points at a port nothing listens on, so each
 * router's tree holds only what that router sent; the KV index does not need
 * Redis (each router hears the engines' events directly).
 */
export const SHARE_DOWN = process.argv.includes('--share-down');
export const SHARE_URL = SHARE_DOWN ? 'redis://127.0.0.1:1' : 'redis://127.0.0.1:6379';
/** Rounds: every configuration runs this many times, interleaved (`--rounds` is the same as `--repeat`). */
export const REPEAT = Number(arg('rounds') ?? arg('repeat') ?? 1);
export const POLICIES = (arg('policies') ?? 'rr,session,tier1,tier2').split(',') as Policy[];
export const ROUTER_COUNTS = (arg('routers') ?? '1,4').split(',').map(Number);
export const ENGINES = Number(arg('engines') ?? 8);
export const HASH_SEED = '11';
export const MODEL = 'llama';

/**
 * `chat`: no profile configured, the router's built-in `chat` (tier-0 session affinity, then the tier-1 tree).
 * `tier2`: keyed on the router's tokenizer worker (the default); `tier2i`: keyed on its event loop (`tokenize_workers: 0`).
 */
export type Policy = 'rr' | 'session' | 'tier1' | 'tier2' | 'tier2i' | 'chat';
export const isTier2 = (p: Policy): boolean => p === 'tier2' || p === 'tier2i';
/** prefix.kv_events.tokenize_timeout for `tier2` (the router's default when absent). */
export const TOKENIZE_TIMEOUT = arg('tokenize-timeout');

export const PROFILES: Record<Policy, Record<string, unknown> | undefined> = {
  rr: { scorers: { inflight: 1 }, picker: { type: 'round-robin' } },
  session: { scorers: { session: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } },
  tier1: { scorers: { prefix: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } },
  tier2: { scorers: { prefix: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } },
  tier2i: { scorers: { prefix: 3, queue: 1, kv: 1, inflight: 1 }, picker: { type: 'max-score' } },
  chat: undefined,
};
