// Original file: llmgw/accounting/v1/accounting.proto

import type { Project as _llmgw_accounting_v1_Project, Project__Output as _llmgw_accounting_v1_Project__Output } from '../../../llmgw/accounting/v1/Project';

export interface ListProjectsResponse {
  'projects'?: (_llmgw_accounting_v1_Project)[];
}

export interface ListProjectsResponse__Output {
  'projects': (_llmgw_accounting_v1_Project__Output)[];
}
