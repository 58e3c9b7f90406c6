// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface ClaimLinkCreated {
  'token'?: (string);
  'expiresAtMs'?: (number | string | Long);
  'keyId'?: (string);
  'accountId'?: (string);
}

export interface ClaimLinkCreated__Output {
  'token': (string);
  'expiresAtMs': (number);
  'keyId': (string);
  'accountId': (string);
}
