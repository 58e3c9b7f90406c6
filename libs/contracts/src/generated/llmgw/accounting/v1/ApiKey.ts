// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface ApiKey {
  'id'?: (string);
  'keyPrefix'?: (string);
  'name'?: (string);
  'projectId'?: (string);
  'band'?: (string);
  'routingProfile'?: (string);
  'createdAt'?: (number | string | Long);
  'expiresAt'?: (number | string | Long);
  'revokedAt'?: (number | string | Long);
  'lastUsedAt'?: (number | string | Long);
}

export interface ApiKey__Output {
  'id': (string);
  'keyPrefix': (string);
  'name': (string);
  'projectId': (string);
  'band': (string);
  'routingProfile': (string);
  'createdAt': (number);
  'expiresAt': (number);
  'revokedAt': (number);
  'lastUsedAt': (number);
}
