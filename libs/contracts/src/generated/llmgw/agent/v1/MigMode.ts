// Original file: llmgw/agent/v1/hardware.proto

export const MigMode = {
  MIG_MODE_UNSPECIFIED: 'MIG_MODE_UNSPECIFIED',
  MIG_MODE_UNSUPPORTED: 'MIG_MODE_UNSUPPORTED',
  MIG_MODE_DISABLED: 'MIG_MODE_DISABLED',
  MIG_MODE_ENABLED: 'MIG_MODE_ENABLED',
} as const;

export type MigMode =
  | 'MIG_MODE_UNSPECIFIED'
  | 0
  | 'MIG_MODE_UNSUPPORTED'
  | 1
  | 'MIG_MODE_DISABLED'
  | 2
  | 'MIG_MODE_ENABLED'
  | 3

export type MigMode__Output = typeof MigMode[keyof typeof MigMode]
