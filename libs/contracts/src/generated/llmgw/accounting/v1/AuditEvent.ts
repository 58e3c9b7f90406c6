// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface AuditEvent {
  'id'?: (number | string | Long);
  'atMs'?: (number | string | Long);
  'actor'?: (string);
  'action'?: (string);
  'targetType'?: (string);
  'targetId'?: (string);
  'details'?: (string);
}

export interface AuditEvent__Output {
  'id': (number);
  'atMs': (number);
  'actor': (string);
  'action': (string);
  'targetType': (string);
  'targetId': (string);
  'details': (string);
}
