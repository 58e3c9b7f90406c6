// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface UpdateKeyRequest {
  'ref'?: (string);
  'name'?: (string);
  'band'?: (string);
  'routingProfile'?: (string);
  'expiresAtMs'?: (number | string | Long);
}

export interface UpdateKeyRequest__Output {
  'ref': (string);
  'name': (string);
  'band': (string);
  'routingProfile': (string);
  'expiresAtMs': (number);
}
