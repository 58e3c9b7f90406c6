// Original file: llmgw/agent/v1/shard.proto

import type { WeightsSource as _llmgw_agent_v1_WeightsSource, WeightsSource__Output as _llmgw_agent_v1_WeightsSource__Output } from '../../../llmgw/agent/v1/WeightsSource';
import type { Long } from '@grpc/proto-loader';

export interface ShardSpec {
  'shardId'?: (string);
  'replicaId'?: (string);
  'model'?: (string);
  'profile'?: (string);
  'engine'?: (string);
  'rank'?: (number);
  'nnodes'?: (number);
  'leaderAddr'?: (string);
  'leaderPort'?: (number);
  'gpuIndices'?: (number)[];
  'hcas'?: (string)[];
  'fabric'?: (string);
  'httpPort'?: (number);
  'modelPath'?: (string);
  'args'?: (string)[];
  'env'?: ({[key: string]: string});
  'tensorParallel'?: (number);
  'pipelineParallel'?: (number);
  'startupTimeoutMs'?: (number | string | Long);
  'launchMode'?: (string);
  'servedModelName'?: (string);
  'maxNumSeqs'?: (number);
  'schedulingPolicy'?: (string);
  'kvEventsPort'?: (number);
  'kvReplayPort'?: (number);
  'apiKey'?: (string);
  'weights'?: (_llmgw_agent_v1_WeightsSource | null);
}

export interface ShardSpec__Output {
  'shardId': (string);
  'replicaId': (string);
  'model': (string);
  'profile': (string);
  'engine': (string);
  'rank': (number);
  'nnodes': (number);
  'leaderAddr': (string);
  'leaderPort': (number);
  'gpuIndices': (number)[];
  'hcas': (string)[];
  'fabric': (string);
  'httpPort': (number);
  'modelPath': (string);
  'args': (string)[];
  'env': ({[key: string]: string});
  'tensorParallel': (number);
  'pipelineParallel': (number);
  'startupTimeoutMs': (number);
  'launchMode': (string);
  'servedModelName': (string);
  'maxNumSeqs': (number);
  'schedulingPolicy': (string);
  'kvEventsPort': (number);
  'kvReplayPort': (number);
  'apiKey': (string);
  'weights': (_llmgw_agent_v1_WeightsSource__Output | null);
}
