// Original file: llmgw/accounting/v1/accounting.proto

import type { AuditEvent as _llmgw_accounting_v1_AuditEvent, AuditEvent__Output as _llmgw_accounting_v1_AuditEvent__Output } from '../../../llmgw/accounting/v1/AuditEvent';

export interface ListAuditResponse {
  'events'?: (_llmgw_accounting_v1_AuditEvent)[];
}

export interface ListAuditResponse__Output {
  'events': (_llmgw_accounting_v1_AuditEvent__Output)[];
}
