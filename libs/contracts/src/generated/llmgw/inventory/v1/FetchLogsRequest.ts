// Original file: llmgw/inventory/v1/inventory.proto

import type { LogsRequest as _llmgw_agent_v1_LogsRequest, LogsRequest__Output as _llmgw_agent_v1_LogsRequest__Output } from '../../../llmgw/agent/v1/LogsRequest';

export interface FetchLogsRequest {
  'nodeId'?: (string);
  'request'?: (_llmgw_agent_v1_LogsRequest | null);
}

export interface FetchLogsRequest__Output {
  'nodeId': (string);
  'request': (_llmgw_agent_v1_LogsRequest__Output | null);
}
