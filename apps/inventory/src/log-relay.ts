import type { inventoryV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { randomUUID } from 'node:crypto';
import type { InventoryCore, LogsReply } from './inventory-core';

const LOG_CHUNK_LINES = 500;

/** FetchLogs: from the node's stream here, or relayed to the instance holding it. */
export class LogRelay {
  constructor(private readonly core: InventoryCore) {}

  async fetchLogs(req: inventoryV1.FetchLogsRequest__Output, write: (c: LogsReply) => Promise<void>, signal: AbortSignal): Promise<void> {
    const node = this.core.o.store.mirror.get(req.nodeId);
    if (!node) throw new LlmgwError('LLMGW_ERR_NOT_FOUND', `node ${req.nodeId} is not in the inventory`);
    if (this.core.sessions.has(req.nodeId)) return this.fetchLogsLocal(req, write, signal);
    const owner = node.instanceId;
    if (this.core.o.peers && owner && owner !== this.core.o.instanceId)
      return this.core.o.peers.fetchLogs(owner, req, write, signal, this.core.o.commandTimeoutMs);
    throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${req.nodeId} has no live agent stream; its logs cannot be read`);
  }

  /**
   * Asks the local agent for logs and relays them in chunks of at most
   * LOG_CHUNK_LINES lines, the last with eof (the agent's ring is read whole
   * before the first chunk goes out).
   */
  async fetchLogsLocal(req: inventoryV1.FetchLogsRequest__Output, write: (c: LogsReply) => Promise<void>, signal: AbortSignal): Promise<void> {
    const s = this.core.sessions.get(req.nodeId);
    if (!s) throw new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${req.nodeId} has no live agent stream on this instance`);
    const requestId = req.request?.requestId || randomUUID();
    const { requestId: _ignored, ...what } = req.request!;
    const res = await s.logs(what);
    let seq = 0;
    for (let i = 0; i === 0 || i < res.lines.length; i += LOG_CHUNK_LINES) {
      if (signal.aborted) return;
      const lines = res.lines.slice(i, i + LOG_CHUNK_LINES);
      await write({ requestId, seq: seq++, lines, eof: i + LOG_CHUNK_LINES >= res.lines.length, truncated: res.truncated });
    }
  }
}
