// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface AuditEvent {
  'id'?: (number | string | Long);
  'ts'?: (number | string | Long);
  'actor'?: (string);
  'action'?: (string);
  'targetType'?: (string);
  'targetId'?: (string);
  'details'?: (string);
}

export interface AuditEvent__Output {
  'id': (number);
  'ts': (number);
  'actor': (string);
  'action': (string);
  'targetType': (string);
  'targetId': (string);
  'details': (string);
}
