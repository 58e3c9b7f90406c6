// Original file: llmgw/agent/v1/stats.proto

import type { LoraState as _llmgw_agent_v1_LoraState, LoraState__Output as _llmgw_agent_v1_LoraState__Output } from '../../../llmgw/agent/v1/LoraState';
import type { Long } from '@grpc/proto-loader';

export interface EngineStats {
  'shardId'?: (string);
  'replicaId'?: (string);
  'endpoint'?: (string);
  'engine'?: (string);
  'scrapedAtMs'?: (number | string | Long);
  'waiting'?: (number);
  'running'?: (number);
  'kvUsage'?: (number | string);
  'promptTokensTotal'?: (number | string | Long);
  'generationTokensTotal'?: (number | string | Long);
  'prefixCacheQueriesTotal'?: (number | string | Long);
  'prefixCacheHitsTotal'?: (number | string | Long);
  'requestsFinishedTotal'?: (number | string | Long);
  'blockSize'?: (number);
  'numGpuBlocks'?: (number);
  'lora'?: (_llmgw_agent_v1_LoraState | null);
  'ttftP50Ms'?: (number | string);
  'tpotP50Ms'?: (number | string);
  'error'?: (string);
  '_kvUsage'?: "kvUsage";
  '_promptTokensTotal'?: "promptTokensTotal";
  '_generationTokensTotal'?: "generationTokensTotal";
  '_prefixCacheQueriesTotal'?: "prefixCacheQueriesTotal";
  '_prefixCacheHitsTotal'?: "prefixCacheHitsTotal";
  '_requestsFinishedTotal'?: "requestsFinishedTotal";
  '_blockSize'?: "blockSize";
  '_numGpuBlocks'?: "numGpuBlocks";
  '_ttftP50Ms'?: "ttftP50Ms";
  '_tpotP50Ms'?: "tpotP50Ms";
}

export interface EngineStats__Output {
  'shardId': (string);
  'replicaId': (string);
  'endpoint': (string);
  'engine': (string);
  'scrapedAtMs': (number);
  'waiting': (number);
  'running': (number);
  'kvUsage'?: (number);
  'promptTokensTotal'?: (number);
  'generationTokensTotal'?: (number);
  'prefixCacheQueriesTotal'?: (number);
  'prefixCacheHitsTotal'?: (number);
  'requestsFinishedTotal'?: (number);
  'blockSize'?: (number);
  'numGpuBlocks'?: (number);
  'lora': (_llmgw_agent_v1_LoraState__Output | null);
  'ttftP50Ms'?: (number);
  'tpotP50Ms'?: (number);
  'error': (string);
  '_kvUsage'?: "kvUsage";
  '_promptTokensTotal'?: "promptTokensTotal";
  '_generationTokensTotal'?: "generationTokensTotal";
  '_prefixCacheQueriesTotal'?: "prefixCacheQueriesTotal";
  '_prefixCacheHitsTotal'?: "prefixCacheHitsTotal";
  '_requestsFinishedTotal'?: "requestsFinishedTotal";
  '_blockSize'?: "blockSize";
  '_numGpuBlocks'?: "numGpuBlocks";
  '_ttftP50Ms'?: "ttftP50Ms";
  '_tpotP50Ms'?: "tpotP50Ms";
}
