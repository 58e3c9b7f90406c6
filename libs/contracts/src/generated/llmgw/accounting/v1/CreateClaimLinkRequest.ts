// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface CreateClaimLinkRequest {
  'kind'?: (string);
  'project'?: (string);
  'account'?: (string);
  'keyName'?: (string);
  'email'?: (string);
  'name'?: (string);
  'role'?: (string);
  'ttlMs'?: (number | string | Long);
}

export interface CreateClaimLinkRequest__Output {
  'kind': (string);
  'project': (string);
  'account': (string);
  'keyName': (string);
  'email': (string);
  'name': (string);
  'role': (string);
  'ttlMs': (number);
}
