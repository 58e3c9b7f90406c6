/**
 * Shard states, defined once: the lifecycle a node-agent reports (PENDING → [DOWNLOADING →]
 * STARTING → LOADING → READY → DRAINING → STOPPED | FAILED, docs/node-agent.md)
 * and which of them are terminal (the shard runs no more). On the wire
 * (proto ShardState) each is `SHARD_STATE_<NAME>`; placement uses the names.
 */
export const SHARD_STATE_NAMES = ['pending', 'downloading', 'starting', 'loading', 'ready', 'draining', 'stopped', 'failed'] as const;
export type ShardStateName = (typeof SHARD_STATE_NAMES)[number];

/** States a shard does not leave: it runs no more. */
export const TERMINAL_SHARD_STATES: ReadonlySet<ShardStateName> = new Set<ShardStateName>(['stopped', 'failed']);

/** The name of a wire state (`SHARD_STATE_READY` → `ready`); undefined for UNSPECIFIED or an unknown one. */
export function shardStateName(wire: string | number | null | undefined): ShardStateName | undefined {
  const n = typeof wire === 'string' && wire.startsWith('SHARD_STATE_') ? wire.slice('SHARD_STATE_'.length).toLowerCase() : '';
  return (SHARD_STATE_NAMES as readonly string[]).includes(n) ? (n as ShardStateName) : undefined;
}

/** Whether a wire state (`SHARD_STATE_…`) is terminal. */
export function isTerminalShardState(wire: string | number | null | undefined): boolean {
  const n = shardStateName(wire);
  return n !== undefined && TERMINAL_SHARD_STATES.has(n);
}
