// Original file: llmgw/agent/v1/agent.proto

export const LogStream = {
  LOG_STREAM_UNSPECIFIED: 'LOG_STREAM_UNSPECIFIED',
  LOG_STREAM_STDOUT: 'LOG_STREAM_STDOUT',
  LOG_STREAM_STDERR: 'LOG_STREAM_STDERR',
} as const;

export type LogStream =
  | 'LOG_STREAM_UNSPECIFIED'
  | 0
  | 'LOG_STREAM_STDOUT'
  | 1
  | 'LOG_STREAM_STDERR'
  | 2

export type LogStream__Output = typeof LogStream[keyof typeof LogStream]
