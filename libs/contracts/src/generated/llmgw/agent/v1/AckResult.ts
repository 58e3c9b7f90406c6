// Original file: llmgw/agent/v1/agent.proto

export const AckResult = {
  ACK_RESULT_UNSPECIFIED: 'ACK_RESULT_UNSPECIFIED',
  ACK_RESULT_ACCEPTED: 'ACK_RESULT_ACCEPTED',
  ACK_RESULT_ALREADY_DONE: 'ACK_RESULT_ALREADY_DONE',
  ACK_RESULT_REJECTED: 'ACK_RESULT_REJECTED',
} as const;

export type AckResult =
  | 'ACK_RESULT_UNSPECIFIED'
  | 0
  | 'ACK_RESULT_ACCEPTED'
  | 1
  | 'ACK_RESULT_ALREADY_DONE'
  | 2
  | 'ACK_RESULT_REJECTED'
  | 3

export type AckResult__Output = typeof AckResult[keyof typeof AckResult]
