// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface Account {
  'id'?: (string);
  'email'?: (string);
  'name'?: (string);
  'status'?: (string);
  'role'?: (string);
  'projectId'?: (string);
  'createdAtMs'?: (number | string | Long);
}

export interface Account__Output {
  'id': (string);
  'email': (string);
  'name': (string);
  'status': (string);
  'role': (string);
  'projectId': (string);
  'createdAtMs': (number);
}
