// Original file: llmgw/accounting/v1/accounting.proto

import type { ApiKey as _llmgw_accounting_v1_ApiKey, ApiKey__Output as _llmgw_accounting_v1_ApiKey__Output } from '../../../llmgw/accounting/v1/ApiKey';
import type { ResolvedKey as _llmgw_accounting_v1_ResolvedKey, ResolvedKey__Output as _llmgw_accounting_v1_ResolvedKey__Output } from '../../../llmgw/accounting/v1/ResolvedKey';
import type { BudgetSpend as _llmgw_accounting_v1_BudgetSpend, BudgetSpend__Output as _llmgw_accounting_v1_BudgetSpend__Output } from '../../../llmgw/accounting/v1/BudgetSpend';

export interface KeyReport {
  'key'?: (_llmgw_accounting_v1_ApiKey | null);
  'resolved'?: (_llmgw_accounting_v1_ResolvedKey | null);
  'budgets'?: (_llmgw_accounting_v1_BudgetSpend)[];
}

export interface KeyReport__Output {
  'key': (_llmgw_accounting_v1_ApiKey__Output | null);
  'resolved': (_llmgw_accounting_v1_ResolvedKey__Output | null);
  'budgets': (_llmgw_accounting_v1_BudgetSpend__Output)[];
}
