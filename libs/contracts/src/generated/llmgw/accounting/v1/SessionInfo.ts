// Original file: llmgw/accounting/v1/accounting.proto

import type { Account as _llmgw_accounting_v1_Account, Account__Output as _llmgw_accounting_v1_Account__Output } from '../../../llmgw/accounting/v1/Account';
import type { Long } from '@grpc/proto-loader';

export interface SessionInfo {
  'account'?: (_llmgw_accounting_v1_Account | null);
  'expiresAtMs'?: (number | string | Long);
}

export interface SessionInfo__Output {
  'account': (_llmgw_accounting_v1_Account__Output | null);
  'expiresAtMs': (number);
}
