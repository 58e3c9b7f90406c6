// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface ApiKey {
  'id'?: (string);
  'keyPrefix'?: (string);
  'name'?: (string);
  'projectId'?: (string);
  'band'?: (string);
  'routingProfile'?: (string);
  'createdAtMs'?: (number | string | Long);
  'expiresAtMs'?: (number | string | Long);
  'revokedAtMs'?: (number | string | Long);
  'lastUsedAtMs'?: (number | string | Long);
}

export interface ApiKey__Output {
  'id': (string);
  'keyPrefix': (string);
  'name': (string);
  'projectId': (string);
  'band': (string);
  'routingProfile': (string);
  'createdAtMs': (number);
  'expiresAtMs': (number);
  'revokedAtMs': (number);
  'lastUsedAtMs': (number);
}
