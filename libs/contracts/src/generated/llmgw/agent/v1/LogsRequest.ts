// Original file: llmgw/agent/v1/agent.proto

import type { LogSource as _llmgw_agent_v1_LogSource, LogSource__Output as _llmgw_agent_v1_LogSource__Output } from '../../../llmgw/agent/v1/LogSource';
import type { Long } from '@grpc/proto-loader';

export interface LogsRequest {
  'requestId'?: (string);
  'source'?: (_llmgw_agent_v1_LogSource);
  'shardId'?: (string);
  'tailLines'?: (number);
  'sinceMs'?: (number | string | Long);
}

export interface LogsRequest__Output {
  'requestId': (string);
  'source': (_llmgw_agent_v1_LogSource__Output);
  'shardId': (string);
  'tailLines': (number);
  'sinceMs': (number);
}
