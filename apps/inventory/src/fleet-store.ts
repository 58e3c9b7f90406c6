import type { inventoryV1 } from '@llmgw/contracts';
import type { FleetNode } from '@llmgw/inventory-rpc';
import { randomBytes } from 'node:crypto';

/** One change, before the store gives it a revision. */
export type EventBody = { nodeChanged: FleetNode } | { shardChanged: inventoryV1.ShardChanged__Output } | { nodeRemoved: { nodeId: string } };

/** What an update function returns: the node's new record (null = forget it) and the events describing the change. */
export interface Mutation {
  node: FleetNode | null;
  events: EventBody[];
}

/**
 * One committed change as every instance applies it: the node's new record
 * and its events, numbered. In Redis mode this is one stream entry.
 */
export interface Commit {
  nodeId: string;
  /** The record after the change; null when removed. */
  node: FleetNode | null;
  /** Record version after the change (optimistic concurrency). */
  version: number;
  events: inventoryV1.FleetEvent__Output[];
}

export type FleetListener = (ev: inventoryV1.FleetEvent__Output) => void;

/**
 * The fleet state every inventory instance serves from: nodes by id, a
 * revision counter, the recent events (for resumed watches) and listeners.
 * Filled only through `applyCommit`, in commit order, so watchers on every
 * instance see the same sequence.
 */
export class FleetMirror {
  protected readonly nodes = new Map<string, { node: FleetNode; version: number }>();
  private readonly history: inventoryV1.FleetEvent__Output[] = [];
  private readonly listeners = new Set<FleetListener>();
  revision = 0;
  epoch: string;

  constructor(
    private readonly historySize: number,
    epoch?: string,
  ) {
    this.epoch = epoch ?? randomBytes(6).toString('hex');
  }

  get(nodeId: string): FleetNode | undefined {
    return this.nodes.get(nodeId)?.node;
  }

  versionOf(nodeId: string): number {
    return this.nodes.get(nodeId)?.version ?? 0;
  }

  all(): FleetNode[] {
    return [...this.nodes.values()].map((r) => r.node).sort((a, b) => a.info!.nodeId.localeCompare(b.info!.nodeId));
  }

  size(): number {
    return this.nodes.size;
  }

  /** Replaces everything (an instance joining a Redis-shared fleet). Listeners are not told: no watcher exists yet. */
  protected load(records: Array<{ node: FleetNode; version: number }>, revision: number, epoch: string): void {
    this.nodes.clear();
    for (const r of records) this.nodes.set(r.node.info!.nodeId, r);
    this.revision = revision;
    this.epoch = epoch;
    this.history.length = 0;
  }

  protected applyCommit(c: Commit): void {
    if (c.events.length && c.events[c.events.length - 1].revision <= this.revision) return; // already applied
    if (c.node) this.nodes.set(c.nodeId, { node: c.node, version: c.version });
    else this.nodes.delete(c.nodeId);
    for (const ev of c.events) {
      this.revision = ev.revision;
      this.history.push(ev);
      for (const l of this.listeners) l(ev);
    }
    if (this.history.length > this.historySize * 1.25) this.history.splice(0, this.history.length - this.historySize);
  }

  /** A snapshot event of the current state. */
  snapshot(now: number): inventoryV1.FleetEvent__Output {
    return { revision: this.revision, atMs: now, epoch: this.epoch, event: 'snapshot', snapshot: { revision: this.revision, nodes: this.all() } };
  }

  /**
   * The events after `revision` of `epoch`, or undefined when they are not
   * all held any more (or the epoch differs): the caller sends a snapshot.
   */
  replayAfter(revision: number, epoch: string): inventoryV1.FleetEvent__Output[] | undefined {
    if (epoch !== this.epoch || revision > this.revision) return undefined;
    if (revision === this.revision) return [];
    const first = this.history[0];
    if (!first || first.revision > revision + 1) return undefined;
    let i = this.history.length;
    while (i > 0 && this.history[i - 1].revision > revision) i--;
    return this.history.slice(i);
  }

  /** Registers a listener for every event applied from now on. */
  subscribe(l: FleetListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  listenerCount(): number {
    return this.listeners.size;
  }
}

/**
 * Where node records live and how a change is committed. The in-process
 * store (one instance, `llmgw up`) and the Redis one (several instances
 * sharing the fleet) behave alike; the contract spec runs both.
 */
export interface FleetStore {
  readonly mirror: FleetMirror;
  /**
   * Reads the node's current record, lets `fn` decide the change (null =
   * nothing to do) and commits it atomically; retried with the fresh record
   * when another writer got there first. Resolves once the commit is
   * applied to this instance's mirror. Returns whether something changed.
   */
  update(nodeId: string, fn: (cur: FleetNode | undefined) => Mutation | null): Promise<boolean>;
  close(): Promise<void>;
}

/** Numbers a mutation's events from `rev + 1`. */
export function numberEvents(events: EventBody[], rev: number, epoch: string, now: number): inventoryV1.FleetEvent__Output[] {
  return events.map((b, i) => {
    const kind = Object.keys(b)[0] as 'nodeChanged' | 'shardChanged' | 'nodeRemoved';
    return { revision: rev + i + 1, atMs: now, epoch, event: kind, ...(b as object) } as inventoryV1.FleetEvent__Output;
  });
}

/** The single-instance store: everything in this process. */
export class MemoryFleetStore extends FleetMirror implements FleetStore {
  readonly mirror: FleetMirror = this;

  constructor(opts: { historySize?: number; clock?: () => number } = {}) {
    super(opts.historySize ?? 10_000);
    this.clock = opts.clock ?? Date.now;
  }

  private readonly clock: () => number;

  async update(nodeId: string, fn: (cur: FleetNode | undefined) => Mutation | null): Promise<boolean> {
    const m = fn(this.get(nodeId));
    if (!m) return false;
    this.applyCommit({ nodeId, node: m.node, version: this.versionOf(nodeId) + 1, events: numberEvents(m.events, this.revision, this.epoch, this.clock()) });
    return true;
  }

  async close(): Promise<void> {
    return;
  }
}
