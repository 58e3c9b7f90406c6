import { skeletonRole } from '@llmgw/cli';

/** `llmgw inventory`: Fleet-facing port: agents dial in, node/GPU/fabric/shard state, shard command relay. A skeleton in this release (docs/roadmap.md). */
export const { buildCommand, main } = skeletonRole('inventory', 'Fleet-facing port: agents dial in, node/GPU/fabric/shard state, shard command relay.', [
  { service: 'llmgw.agent.v1.AgentService', where: 'proto/llmgw/agent/v1/agent.proto (serves the fleet-facing port, mTLS: agents dial in)' },
  { service: 'llmgw.inventory.v1.InventoryService', where: 'proto/llmgw/inventory/v1/inventory.proto (serves placement-scheduler)' },
]);
