import type { agentV1, inventoryV1 } from '@llmgw/contracts';
import { LlmgwError, isLlmgwError, type ErrorCode } from '@llmgw/errors';
import type { Logger } from '@llmgw/observability';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Peers } from './inventory';

type LogsReply = agentV1.LogsReply;

/** Pub/sub channels between inventory instances (docs/inventory.md). */
export function clusterChannels(prefix: string, instanceId?: string) {
  const p = `${prefix}inventory:`;
  return {
    presence: `${p}presence`,
    seen: `${p}seen`,
    stats: `${p}stats`,
    rpc: (id: string) => `${p}rpc:${id}`,
    self: instanceId ? `${p}rpc:${instanceId}` : '',
  };
}

type RpcMessage =
  | { t: 'cmd'; id: string; from: string; req: inventoryV1.ShardCommandRequest__Output; deadlineMs: number }
  | { t: 'logs'; id: string; from: string; req: inventoryV1.FetchLogsRequest__Output; timeoutMs: number }
  | { t: 'cancel'; id: string }
  | { t: 'reply'; id: string; res?: inventoryV1.ShardCommandResponse; err?: { code: ErrorCode; message: string } }
  | { t: 'chunk'; id: string; chunk: LogsReply }
  | { t: 'end'; id: string; err?: { code: ErrorCode; message: string } };

/** What this instance does for the others. */
export interface LocalHandlers {
  relay(req: inventoryV1.ShardCommandRequest__Output, deadlineMs: number): Promise<inventoryV1.ShardCommandResponse>;
  logs(req: inventoryV1.FetchLogsRequest__Output, write: (c: LogsReply) => Promise<void>, signal: AbortSignal): Promise<void>;
  stats(nodeId: string, stats: agentV1.EngineStats__Output): void;
}

export interface RedisPeersOptions {
  redis: Redis;
  /** A dedicated subscriber connection. */
  sub: Redis;
  keyPrefix: string;
  instanceId: string;
  /** An instance silent this long is presumed dead. */
  instanceTtlMs: number;
  log: Logger;
  clock?: () => number;
}

const errOf = (e: unknown): { code: ErrorCode; message: string } =>
  isLlmgwError(e) ? { code: e.code, message: e.message } : { code: 'LLMGW_ERR_INTERNAL', message: 'internal error on the instance holding the stream' };

/**
 * Inventory instances talking through Redis pub/sub: presence (who is
 * alive), last-seen batches (so every instance judges liveness alike),
 * engine stats fan-out (watchers everywhere see them), and request/reply
 * routing of shard commands and log requests to the instance that holds the
 * target agent's stream.
 */
export class RedisPeers implements Peers {
  private readonly ch: ReturnType<typeof clusterChannels>;
  private readonly alive = new Map<string, number>();
  private readonly seenMap = new Map<string, number>();
  private dirtySeen = new Map<string, number>();
  private statsBatch: Array<{ n: string; s: agentV1.EngineStats__Output }> = [];
  private readonly pending = new Map<string, { reply?: (m: RpcMessage) => void }>();
  private readonly serving = new Map<string, AbortController>();
  private handlers?: LocalHandlers;
  private timers: NodeJS.Timeout[] = [];
  private readonly clock: () => number;
  private closed = false;
  private announce: () => void = () => undefined;

  constructor(private readonly o: RedisPeersOptions) {
    this.ch = clusterChannels(o.keyPrefix, o.instanceId);
    this.clock = o.clock ?? Date.now;
  }

  async start(handlers: LocalHandlers): Promise<void> {
    this.handlers = handlers;
    this.o.sub.on('message', (channel: string, text: string) => this.onMessage(channel, text));
    await this.o.sub.subscribe(this.ch.presence, this.ch.seen, this.ch.stats, this.ch.self);
    const announce = (hello = false) =>
      void this.o.redis.publish(this.ch.presence, JSON.stringify({ i: this.o.instanceId, up: true, hello })).catch(() => undefined);
    this.announce = () => announce();
    announce(true);
    this.timers.push(setInterval(announce, Math.max(200, Math.floor(this.o.instanceTtlMs / 3))));
    this.timers.push(setInterval(() => this.flush(), 250));
    for (const t of this.timers) t.unref();
  }

  isAlive(instanceId: string): boolean {
    if (instanceId === this.o.instanceId) return true;
    const at = this.alive.get(instanceId);
    return at !== undefined && this.clock() - at <= this.o.instanceTtlMs;
  }

  seen(nodeId: string): number | undefined {
    return this.seenMap.get(nodeId);
  }

  noteSeen(nodeId: string, ms: number): void {
    this.dirtySeen.set(nodeId, ms);
  }

  publishStats(nodeId: string, stats: agentV1.EngineStats__Output): void {
    this.statsBatch.push({ n: nodeId, s: stats });
  }

  private flush(): void {
    if (this.dirtySeen.size) {
      const s = Object.fromEntries(this.dirtySeen);
      this.dirtySeen = new Map();
      void this.o.redis.publish(this.ch.seen, JSON.stringify({ i: this.o.instanceId, s })).catch(() => undefined);
    }
    if (this.statsBatch.length) {
      const b = this.statsBatch;
      this.statsBatch = [];
      void this.o.redis.publish(this.ch.stats, JSON.stringify({ i: this.o.instanceId, b })).catch(() => undefined);
    }
  }

  private onMessage(channel: string, text: string): void {
    let m: any;
    try {
      m = JSON.parse(text);
    } catch {
      return;
    }
    if (channel === this.ch.presence) {
      if (m.i === this.o.instanceId) return;
      if (m.up) this.alive.set(String(m.i), this.clock());
      else this.alive.delete(String(m.i));
      // A new instance asks who is there: answer at once rather than at the next period.
      if (m.hello) this.announce();
    } else if (channel === this.ch.seen) {
      if (m.i === this.o.instanceId) return;
      this.alive.set(String(m.i), this.clock());
      for (const [node, ms] of Object.entries(m.s as Record<string, number>)) if ((this.seenMap.get(node) ?? 0) < ms) this.seenMap.set(node, ms);
    } else if (channel === this.ch.stats) {
      if (m.i === this.o.instanceId) return;
      for (const e of m.b as Array<{ n: string; s: agentV1.EngineStats__Output }>) this.handlers?.stats(e.n, e.s);
    } else if (channel === this.ch.self) {
      this.onRpc(m as RpcMessage);
    }
  }

  private send(instanceId: string, m: RpcMessage): Promise<number> {
    return this.o.redis.publish(this.ch.rpc(instanceId), JSON.stringify(m));
  }

  private onRpc(m: RpcMessage): void {
    switch (m.t) {
      case 'cmd': {
        const h = this.handlers;
        if (!h) return;
        h.relay(m.req, m.deadlineMs).then(
          (res) => void this.send(m.from, { t: 'reply', id: m.id, res }).catch(() => undefined),
          (e) => void this.send(m.from, { t: 'reply', id: m.id, err: errOf(e) }).catch(() => undefined),
        );
        return;
      }
      case 'logs': {
        const h = this.handlers;
        if (!h) return;
        const ac = new AbortController();
        this.serving.set(m.id, ac);
        h.logs(m.req, async (chunk) => void (await this.send(m.from, { t: 'chunk', id: m.id, chunk })), ac.signal)
          .then(
            () => void this.send(m.from, { t: 'end', id: m.id }).catch(() => undefined),
            (e) => void this.send(m.from, { t: 'end', id: m.id, err: errOf(e) }).catch(() => undefined),
          )
          .finally(() => this.serving.delete(m.id));
        return;
      }
      case 'cancel':
        this.serving.get(m.id)?.abort();
        return;
      default:
        this.pending.get(m.id)?.reply?.(m);
    }
  }

  async sendCommand(owner: string, req: inventoryV1.ShardCommandRequest__Output, deadlineMs: number): Promise<inventoryV1.ShardCommandResponse> {
    const id = randomUUID();
    const wait = Number.isFinite(deadlineMs) ? deadlineMs : 30_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new LlmgwError(
            'LLMGW_ERR_DEADLINE_EXCEEDED',
            `inventory instance ${owner} did not answer the routed command within ${wait} ms; the command is reported failed`,
          ),
        );
      }, wait);
      this.pending.set(id, {
        reply: (m) => {
          if (m.t !== 'reply') return;
          clearTimeout(timer);
          this.pending.delete(id);
          if (m.err) reject(new LlmgwError(m.err.code, m.err.message));
          else resolve(m.res!);
        },
      });
      this.send(owner, { t: 'cmd', id, from: this.o.instanceId, req, deadlineMs: wait }).then(
        (receivers) => {
          if (receivers > 0) return;
          clearTimeout(timer);
          this.pending.delete(id);
          reject(
            new LlmgwError('LLMGW_ERR_UNAVAILABLE', `inventory instance ${owner}, which holds the node's stream, is gone; retry once the agent reconnects`),
          );
        },
        (e) => {
          clearTimeout(timer);
          this.pending.delete(id);
          reject(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `cannot reach Redis to route the command: ${(e as Error).message}`));
        },
      );
    });
  }

  fetchLogs(
    owner: string,
    req: inventoryV1.FetchLogsRequest__Output,
    write: (c: LogsReply) => Promise<void>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<void> {
    const id = randomUUID();
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout;
      let writing = Promise.resolve();
      const finish = (e?: Error) => {
        clearTimeout(timer);
        this.pending.delete(id);
        signal.removeEventListener('abort', onAbort);
        writing.then(() => (e ? reject(e) : resolve()), reject);
      };
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(
          () => finish(new LlmgwError('LLMGW_ERR_DEADLINE_EXCEEDED', `inventory instance ${owner} sent no log chunk within ${timeoutMs} ms`)),
          timeoutMs,
        );
      };
      const onAbort = () => {
        void this.send(owner, { t: 'cancel', id }).catch(() => undefined);
        finish();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        reply: (m) => {
          if (m.t === 'chunk') {
            arm();
            writing = writing.then(() => write(m.chunk));
          } else if (m.t === 'end') finish(m.err ? new LlmgwError(m.err.code, m.err.message) : undefined);
        },
      });
      arm();
      this.send(owner, { t: 'logs', id, from: this.o.instanceId, req, timeoutMs }).then(
        (n) => {
          if (n === 0) finish(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `inventory instance ${owner}, which holds the node's stream, is gone`));
        },
        (e) => finish(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `cannot reach Redis to route the log request: ${(e as Error).message}`)),
      );
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.flush();
    await this.o.redis.publish(this.ch.presence, JSON.stringify({ i: this.o.instanceId, up: false })).catch(() => undefined);
    for (const ac of this.serving.values()) ac.abort();
    this.o.sub.disconnect();
  }
}
