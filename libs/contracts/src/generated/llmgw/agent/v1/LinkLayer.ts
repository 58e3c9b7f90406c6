// Original file: llmgw/agent/v1/hardware.proto

export const LinkLayer = {
  LINK_LAYER_UNSPECIFIED: 'LINK_LAYER_UNSPECIFIED',
  LINK_LAYER_INFINIBAND: 'LINK_LAYER_INFINIBAND',
  LINK_LAYER_ETHERNET: 'LINK_LAYER_ETHERNET',
} as const;

export type LinkLayer =
  | 'LINK_LAYER_UNSPECIFIED'
  | 0
  | 'LINK_LAYER_INFINIBAND'
  | 1
  | 'LINK_LAYER_ETHERNET'
  | 2

export type LinkLayer__Output = typeof LinkLayer[keyof typeof LinkLayer]
