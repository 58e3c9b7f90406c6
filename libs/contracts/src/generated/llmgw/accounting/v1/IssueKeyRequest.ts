// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface IssueKeyRequest {
  'token'?: (string);
  'name'?: (string);
  'expiresAtMs'?: (number | string | Long);
}

export interface IssueKeyRequest__Output {
  'token': (string);
  'name': (string);
  'expiresAtMs': (number);
}
