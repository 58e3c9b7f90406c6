// Original file: llmgw/accounting/v1/accounting.proto

import type { Team as _llmgw_accounting_v1_Team, Team__Output as _llmgw_accounting_v1_Team__Output } from '../../../llmgw/accounting/v1/Team';

export interface ListTeamsResponse {
  'teams'?: (_llmgw_accounting_v1_Team)[];
}

export interface ListTeamsResponse__Output {
  'teams': (_llmgw_accounting_v1_Team__Output)[];
}
