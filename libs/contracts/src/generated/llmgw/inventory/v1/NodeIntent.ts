// Original file: llmgw/inventory/v1/inventory.proto

export const NodeIntent = {
  NODE_INTENT_UNSPECIFIED: 'NODE_INTENT_UNSPECIFIED',
  NODE_INTENT_CORDONED: 'NODE_INTENT_CORDONED',
  NODE_INTENT_DRAINING: 'NODE_INTENT_DRAINING',
} as const;

export type NodeIntent =
  | 'NODE_INTENT_UNSPECIFIED'
  | 0
  | 'NODE_INTENT_CORDONED'
  | 1
  | 'NODE_INTENT_DRAINING'
  | 2

export type NodeIntent__Output = typeof NodeIntent[keyof typeof NodeIntent]
