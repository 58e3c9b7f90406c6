// Original file: llmgw/agent/v1/shard.proto

import type { ShardState as _llmgw_agent_v1_ShardState, ShardState__Output as _llmgw_agent_v1_ShardState__Output } from '../../../llmgw/agent/v1/ShardState';
import type { ShardSpec as _llmgw_agent_v1_ShardSpec, ShardSpec__Output as _llmgw_agent_v1_ShardSpec__Output } from '../../../llmgw/agent/v1/ShardSpec';
import type { DownloadProgress as _llmgw_agent_v1_DownloadProgress, DownloadProgress__Output as _llmgw_agent_v1_DownloadProgress__Output } from '../../../llmgw/agent/v1/DownloadProgress';
import type { Long } from '@grpc/proto-loader';

export interface ShardStatus {
  'shardId'?: (string);
  'replicaId'?: (string);
  'state'?: (_llmgw_agent_v1_ShardState);
  'stateSinceMs'?: (number | string | Long);
  'message'?: (string);
  'exitCode'?: (number);
  'exited'?: (boolean);
  'pid'?: (number);
  'endpoint'?: (string);
  'spec'?: (_llmgw_agent_v1_ShardSpec | null);
  'adopted'?: (boolean);
  'pgid'?: (number);
  'restarts'?: (number);
  'drained'?: (boolean);
  'download'?: (_llmgw_agent_v1_DownloadProgress | null);
}

export interface ShardStatus__Output {
  'shardId': (string);
  'replicaId': (string);
  'state': (_llmgw_agent_v1_ShardState__Output);
  'stateSinceMs': (number);
  'message': (string);
  'exitCode': (number);
  'exited': (boolean);
  'pid': (number);
  'endpoint': (string);
  'spec': (_llmgw_agent_v1_ShardSpec__Output | null);
  'adopted': (boolean);
  'pgid': (number);
  'restarts': (number);
  'drained': (boolean);
  'download': (_llmgw_agent_v1_DownloadProgress__Output | null);
}
