import type { agentV1, inventoryV1 } from '@llmgw/contracts';
import { LlmgwError, isLlmgwError } from '@llmgw/errors';
import type { InventoryCore } from './inventory-core';

type Ack = agentV1.Ack__Output;
type CommandKind = 'start' | 'stop' | 'drain';

/** A timeout or disconnect of a relayed command, said as what it means for the caller. */
function reportedFailed(e: unknown, kind: string, id: string): unknown {
  if (!isLlmgwError(e)) return e;
  if (e.code === 'LLMGW_ERR_DEADLINE_EXCEEDED') return new LlmgwError(e.code, `${e.message}; ${kind} ${id} is reported failed`);
  return e;
}

/**
 * Shard commands: fenced, sent on the node's stream here or relayed to the
 * instance holding it, idempotent by command id.
 */
export class CommandRelay {
  private readonly inflight = new Map<string, Promise<Ack>>();
  private readonly finished = new Map<string, { ack: Ack; at: number }>();

  constructor(private readonly core: InventoryCore) {}

  async sendShardCommand(
    req: inventoryV1.ShardCommandRequest__Output,
    ctx: { deadlineMs: number; signal?: AbortSignal },
  ): Promise<inventoryV1.ShardCommandResponse> {
    const kind = req.command as CommandKind;
    if (!(await this.core.o.fence.admit(req.fencingToken))) {
      this.core.metrics.commandFailed(kind, 'stale_fencing_token');
      throw new LlmgwError(
        'LLMGW_ERR_FAILED_PRECONDITION',
        `fencing token ${req.fencingToken} is older than one already seen: this sender is no longer the leader`,
      );
    }
    const node = this.core.o.store.mirror.get(req.nodeId);
    if (!node) {
      this.core.metrics.commandFailed(kind, 'unknown_node');
      throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `node ${req.nodeId} is not in the inventory`);
    }
    if (this.core.sessions.has(req.nodeId)) return this.relayLocal(req, ctx.deadlineMs);
    const owner = node.instanceId;
    if (this.core.o.peers && owner && owner !== this.core.o.instanceId) {
      const started = this.core.clock();
      try {
        const res = await this.core.o.peers.sendCommand(owner, req, Math.min(ctx.deadlineMs, this.core.o.commandTimeoutMs + 1000));
        this.core.metrics.command(kind, 'routed', (this.core.clock() - started) / 1000);
        return res;
      } catch (e) {
        this.core.metrics.commandFailed(kind, 'route');
        throw e;
      }
    }
    this.core.metrics.commandFailed(kind, 'not_connected');
    throw new LlmgwError(
      'LLMGW_ERR_UNAVAILABLE',
      `node ${req.nodeId} has no live agent stream (${node.connectivity.replace('CONNECTIVITY_', '').toLowerCase()}: ${node.connectivityReason})`,
    );
  }

  /**
   * Sends a command on this instance's stream to the node and waits for its
   * Ack. Idempotent by command_id: a repeat while in flight joins it, a
   * repeat after an Ack gets that Ack (replayed). No Ack before the timeout
   * → DEADLINE_EXCEEDED (the command is reported failed; a retry sends it
   * again, which the agent treats idempotently by shard_id).
   */
  async relayLocal(req: inventoryV1.ShardCommandRequest__Output, deadlineMs: number): Promise<inventoryV1.ShardCommandResponse> {
    const kind = req.command as CommandKind;
    const cmd = req[kind]! as { commandId: string };
    const id = cmd.commandId;
    this.expireRecords();
    const done = this.finished.get(id);
    if (done) return { ack: done.ack, replayed: true };
    const running = this.inflight.get(id);
    if (running) return { ack: await running, replayed: false };
    const started = this.core.clock();
    const timeout = Math.max(1, Math.min(deadlineMs, this.core.o.commandTimeoutMs));
    const p = this.awaitAck(req.nodeId, id, kind, req, timeout);
    this.inflight.set(id, p);
    try {
      const ack = await p;
      this.finished.set(id, { ack, at: this.core.clock() });
      const result = ack.result.replace('ACK_RESULT_', '').toLowerCase();
      this.core.metrics.command(kind, result, (this.core.clock() - started) / 1000);
      if (ack.result === 'ACK_RESULT_REJECTED') this.core.metrics.commandFailed(kind, 'rejected');
      return { ack, replayed: false };
    } catch (e) {
      const reason = isLlmgwError(e) && e.code === 'LLMGW_ERR_DEADLINE_EXCEEDED' ? 'timeout' : 'disconnected';
      this.core.metrics.commandFailed(kind, reason);
      this.core.metrics.command(kind, reason, (this.core.clock() - started) / 1000);
      this.core.o.log.warn({ node: req.nodeId, command: kind, commandId: id, reason, err: (e as Error).message }, 'shard command failed');
      throw e;
    } finally {
      this.inflight.delete(id);
    }
  }

  private awaitAck(nodeId: string, id: string, kind: CommandKind, req: inventoryV1.ShardCommandRequest__Output, timeoutMs: number): Promise<Ack> {
    const s = this.core.sessions.get(nodeId);
    if (!s) return Promise.reject(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${nodeId} has no live agent stream on this instance`));
    const sent =
      kind === 'start'
        ? s.startShard(req.start!.spec!, { commandId: id })
        : kind === 'stop'
          ? s.stopShard(req.stop!.shardId, { commandId: id, graceMs: req.stop!.graceMs, reason: req.stop!.reason })
          : s.drainShard(req.drain!.shardId, { commandId: id, timeoutMs: req.drain!.timeoutMs, reason: req.drain!.reason });
    // The session times out at the command timeout; a caller's shorter deadline wins.
    if (timeoutMs >= this.core.o.commandTimeoutMs) return sent.catch((e) => Promise.reject(reportedFailed(e, kind, id)));
    let timer: NodeJS.Timeout;
    const deadline = new Promise<never>((_r, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new LlmgwError(
              'LLMGW_ERR_DEADLINE_EXCEEDED',
              `node ${nodeId} did not acknowledge ${kind} ${id} within ${timeoutMs} ms; the command is reported failed`,
            ),
          ),
        timeoutMs,
      );
    });
    return Promise.race([sent.catch((e) => Promise.reject(reportedFailed(e, kind, id))), deadline]).finally(() => clearTimeout(timer));
  }

  private expireRecords(): void {
    const cutoff = this.core.clock() - this.core.o.commandRecordTtlMs;
    for (const [id, r] of this.finished) {
      if (r.at >= cutoff) break;
      this.finished.delete(id);
    }
  }
}
