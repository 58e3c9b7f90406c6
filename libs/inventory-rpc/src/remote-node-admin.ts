import type { controlV1 } from '@llmgw/contracts';
import type { ControlClient } from './client';
import type { Actor, ControlNode, LogsReply, NodeAdminBackend, NodeAdminResponse } from './control-nodes';

/**
 * The node half of the ControlService answered by another ControlService —
 * inventory's — over gRPC: what the placement-scheduler mounts so `ctl`
 * sees the same nodes, intents and logs whichever of the two it talks to.
 * The caller's identity is not forwarded (the hop authenticates as the
 * placement-scheduler's own certificate).
 */
export class RemoteNodeAdmin implements NodeAdminBackend {
  constructor(private readonly client: ControlClient) {}

  async listNodes(): Promise<ControlNode[]> {
    return (await this.client.listNodes()).nodes;
  }

  getNode(nodeId: string): Promise<ControlNode> {
    return this.client.getNode(nodeId);
  }

  cordon(nodeId: string, reason: string, _actor: Actor): Promise<NodeAdminResponse> {
    return this.client.cordon(nodeId, reason);
  }

  uncordon(nodeId: string, _actor: Actor): Promise<NodeAdminResponse> {
    return this.client.uncordon(nodeId);
  }

  drain(nodeId: string, reason: string, replicaDrainTimeoutMs: number, _actor: Actor): Promise<NodeAdminResponse> {
    return this.client.drain(nodeId, reason, replicaDrainTimeoutMs);
  }

  async logs(req: controlV1.LogsRequest__Output, write: (chunk: LogsReply) => Promise<void>, signal: AbortSignal): Promise<void> {
    for await (const chunk of this.client.logs(req, { signal, deadlineMs: 0 })) await write(chunk);
  }
}
