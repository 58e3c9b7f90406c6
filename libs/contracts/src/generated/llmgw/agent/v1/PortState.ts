// Original file: llmgw/agent/v1/hardware.proto

export const PortState = {
  PORT_STATE_UNSPECIFIED: 'PORT_STATE_UNSPECIFIED',
  PORT_STATE_DOWN: 'PORT_STATE_DOWN',
  PORT_STATE_INIT: 'PORT_STATE_INIT',
  PORT_STATE_ARMED: 'PORT_STATE_ARMED',
  PORT_STATE_ACTIVE: 'PORT_STATE_ACTIVE',
  PORT_STATE_ACTIVE_DEFER: 'PORT_STATE_ACTIVE_DEFER',
} as const;

export type PortState =
  | 'PORT_STATE_UNSPECIFIED'
  | 0
  | 'PORT_STATE_DOWN'
  | 1
  | 'PORT_STATE_INIT'
  | 2
  | 'PORT_STATE_ARMED'
  | 3
  | 'PORT_STATE_ACTIVE'
  | 4
  | 'PORT_STATE_ACTIVE_DEFER'
  | 5

export type PortState__Output = typeof PortState[keyof typeof PortState]
