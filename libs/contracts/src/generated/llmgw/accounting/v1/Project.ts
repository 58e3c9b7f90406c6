// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface Project {
  'id'?: (string);
  'teamId'?: (string);
  'name'?: (string);
  'band'?: (string);
  'createdAtMs'?: (number | string | Long);
}

export interface Project__Output {
  'id': (string);
  'teamId': (string);
  'name': (string);
  'band': (string);
  'createdAtMs': (number);
}
