// Original file: llmgw/accounting/v1/accounting.proto

import type { ScopeLimit as _llmgw_accounting_v1_ScopeLimit, ScopeLimit__Output as _llmgw_accounting_v1_ScopeLimit__Output } from '../../../llmgw/accounting/v1/ScopeLimit';
import type { BudgetLimit as _llmgw_accounting_v1_BudgetLimit, BudgetLimit__Output as _llmgw_accounting_v1_BudgetLimit__Output } from '../../../llmgw/accounting/v1/BudgetLimit';

export interface ResolvedLimits {
  'rpm'?: (_llmgw_accounting_v1_ScopeLimit)[];
  'tpm'?: (_llmgw_accounting_v1_ScopeLimit)[];
  'budgets'?: (_llmgw_accounting_v1_BudgetLimit)[];
  'modelsRestricted'?: (boolean);
  'allowedModels'?: (string)[];
}

export interface ResolvedLimits__Output {
  'rpm': (_llmgw_accounting_v1_ScopeLimit__Output)[];
  'tpm': (_llmgw_accounting_v1_ScopeLimit__Output)[];
  'budgets': (_llmgw_accounting_v1_BudgetLimit__Output)[];
  'modelsRestricted': (boolean);
  'allowedModels': (string)[];
}
