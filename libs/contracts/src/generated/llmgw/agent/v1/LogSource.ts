// Original file: llmgw/agent/v1/agent.proto

export const LogSource = {
  LOG_SOURCE_UNSPECIFIED: 'LOG_SOURCE_UNSPECIFIED',
  LOG_SOURCE_AGENT: 'LOG_SOURCE_AGENT',
  LOG_SOURCE_SHARD: 'LOG_SOURCE_SHARD',
} as const;

export type LogSource =
  | 'LOG_SOURCE_UNSPECIFIED'
  | 0
  | 'LOG_SOURCE_AGENT'
  | 1
  | 'LOG_SOURCE_SHARD'
  | 2

export type LogSource__Output = typeof LogSource[keyof typeof LogSource]
