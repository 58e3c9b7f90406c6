// Original file: llmgw/accounting/v1/accounting.proto

import type { ResolvedLimits as _llmgw_accounting_v1_ResolvedLimits, ResolvedLimits__Output as _llmgw_accounting_v1_ResolvedLimits__Output } from '../../../llmgw/accounting/v1/ResolvedLimits';
import type { Long } from '@grpc/proto-loader';

export interface ResolvedKey {
  'keyId'?: (string);
  'keyPrefix'?: (string);
  'projectId'?: (string);
  'teamId'?: (string);
  'orgId'?: (string);
  'band'?: (string);
  'routingProfile'?: (string);
  'expiresAtMs'?: (number | string | Long);
  'limits'?: (_llmgw_accounting_v1_ResolvedLimits | null);
}

export interface ResolvedKey__Output {
  'keyId': (string);
  'keyPrefix': (string);
  'projectId': (string);
  'teamId': (string);
  'orgId': (string);
  'band': (string);
  'routingProfile': (string);
  'expiresAtMs': (number);
  'limits': (_llmgw_accounting_v1_ResolvedLimits__Output | null);
}
