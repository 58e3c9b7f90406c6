// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface CreateKeyRequest {
  'project'?: (string);
  'name'?: (string);
  'band'?: (string);
  'routingProfile'?: (string);
  'expiresAtMs'?: (number | string | Long);
}

export interface CreateKeyRequest__Output {
  'project': (string);
  'name': (string);
  'band': (string);
  'routingProfile': (string);
  'expiresAtMs': (number);
}
