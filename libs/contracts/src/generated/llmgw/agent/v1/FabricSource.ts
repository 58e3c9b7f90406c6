// Original file: llmgw/agent/v1/hardware.proto

export const FabricSource = {
  FABRIC_SOURCE_UNSPECIFIED: 'FABRIC_SOURCE_UNSPECIFIED',
  FABRIC_SOURCE_LABEL: 'FABRIC_SOURCE_LABEL',
  FABRIC_SOURCE_GID_PREFIX: 'FABRIC_SOURCE_GID_PREFIX',
  FABRIC_SOURCE_UNKNOWN: 'FABRIC_SOURCE_UNKNOWN',
} as const;

export type FabricSource =
  | 'FABRIC_SOURCE_UNSPECIFIED'
  | 0
  | 'FABRIC_SOURCE_LABEL'
  | 1
  | 'FABRIC_SOURCE_GID_PREFIX'
  | 2
  | 'FABRIC_SOURCE_UNKNOWN'
  | 3

export type FabricSource__Output = typeof FabricSource[keyof typeof FabricSource]
