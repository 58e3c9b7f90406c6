import { skeletonRole } from '@llmgw/cli';

/** `llmgw node-agent`: Runs on every GPU node: discovery, engine supervision, reports to inventory. A skeleton in this release (docs/roadmap.md). */
export const { buildCommand, main } = skeletonRole('node-agent', 'Runs on every GPU node: discovery, engine supervision, reports to inventory.', [
  { service: 'llmgw.agent.v1.AgentService', where: 'proto/llmgw/agent/v1/agent.proto (dials out to inventory, mTLS, CN = node id)' },
]);
