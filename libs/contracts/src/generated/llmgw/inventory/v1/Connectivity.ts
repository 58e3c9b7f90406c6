// Original file: llmgw/inventory/v1/inventory.proto

export const Connectivity = {
  CONNECTIVITY_UNSPECIFIED: 'CONNECTIVITY_UNSPECIFIED',
  CONNECTIVITY_CONNECTED: 'CONNECTIVITY_CONNECTED',
  CONNECTIVITY_UNREACHABLE: 'CONNECTIVITY_UNREACHABLE',
  CONNECTIVITY_LOST: 'CONNECTIVITY_LOST',
} as const;

export type Connectivity =
  | 'CONNECTIVITY_UNSPECIFIED'
  | 0
  | 'CONNECTIVITY_CONNECTED'
  | 1
  | 'CONNECTIVITY_UNREACHABLE'
  | 2
  | 'CONNECTIVITY_LOST'
  | 3

export type Connectivity__Output = typeof Connectivity[keyof typeof Connectivity]
