// Original file: llmgw/control/v1/control.proto

import type { LogSource as _llmgw_agent_v1_LogSource, LogSource__Output as _llmgw_agent_v1_LogSource__Output } from '../../../llmgw/agent/v1/LogSource';
import type { Long } from '@grpc/proto-loader';

export interface LogsRequest {
  'nodeId'?: (string);
  'source'?: (_llmgw_agent_v1_LogSource);
  'shardId'?: (string);
  'tailLines'?: (number);
  'sinceMs'?: (number | string | Long);
  'replicaId'?: (string);
  'rank'?: (number);
  'rankSet'?: (boolean);
}

export interface LogsRequest__Output {
  'nodeId': (string);
  'source': (_llmgw_agent_v1_LogSource__Output);
  'shardId': (string);
  'tailLines': (number);
  'sinceMs': (number);
  'replicaId': (string);
  'rank': (number);
  'rankSet': (boolean);
}
