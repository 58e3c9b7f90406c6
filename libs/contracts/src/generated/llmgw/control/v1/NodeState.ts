// Original file: llmgw/control/v1/control.proto

export const NodeState = {
  NODE_STATE_UNSPECIFIED: 'NODE_STATE_UNSPECIFIED',
  NODE_STATE_READY: 'NODE_STATE_READY',
  NODE_STATE_CORDONED: 'NODE_STATE_CORDONED',
  NODE_STATE_DRAINING: 'NODE_STATE_DRAINING',
  NODE_STATE_UNREACHABLE: 'NODE_STATE_UNREACHABLE',
  NODE_STATE_LOST: 'NODE_STATE_LOST',
} as const;

export type NodeState =
  | 'NODE_STATE_UNSPECIFIED'
  | 0
  | 'NODE_STATE_READY'
  | 1
  | 'NODE_STATE_CORDONED'
  | 2
  | 'NODE_STATE_DRAINING'
  | 3
  | 'NODE_STATE_UNREACHABLE'
  | 4
  | 'NODE_STATE_LOST'
  | 5

export type NodeState__Output = typeof NodeState[keyof typeof NodeState]
