import { skeletonRole } from '@llmgw/cli';

/** `llmgw placement-scheduler`: Catalog, placement, reconciler and the control admin API used by ctl. A skeleton in this release (docs/roadmap.md). */
export const { buildCommand, main } = skeletonRole('placement-scheduler', 'Catalog, placement, reconciler and the control admin API used by ctl.', [
  { service: 'llmgw.control.v1.ControlService', where: 'proto/llmgw/control/v1/control.proto (serves the admin API llmgw ctl uses)' },
  { service: 'llmgw.inventory.v1.InventoryService', where: 'proto/llmgw/inventory/v1/inventory.proto (calls: fleet watch, shard commands, logs)' },
]);
