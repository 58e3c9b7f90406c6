// Original file: llmgw/admission/v1/admission.proto

export const RejectReason = {
  REJECT_REASON_UNSPECIFIED: 'REJECT_REASON_UNSPECIFIED',
  REJECT_REASON_FULL: 'REJECT_REASON_FULL',
  REJECT_REASON_TTL: 'REJECT_REASON_TTL',
  REJECT_REASON_CLIENT_GONE: 'REJECT_REASON_CLIENT_GONE',
  REJECT_REASON_DISPLACED: 'REJECT_REASON_DISPLACED',
} as const;

export type RejectReason =
  | 'REJECT_REASON_UNSPECIFIED'
  | 0
  | 'REJECT_REASON_FULL'
  | 1
  | 'REJECT_REASON_TTL'
  | 2
  | 'REJECT_REASON_CLIENT_GONE'
  | 3
  | 'REJECT_REASON_DISPLACED'
  | 4

export type RejectReason__Output = typeof RejectReason[keyof typeof RejectReason]
