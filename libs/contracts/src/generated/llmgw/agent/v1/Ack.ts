// Original file: llmgw/agent/v1/agent.proto

import type { AckResult as _llmgw_agent_v1_AckResult, AckResult__Output as _llmgw_agent_v1_AckResult__Output } from '../../../llmgw/agent/v1/AckResult';

export interface Ack {
  'refId'?: (string);
  'result'?: (_llmgw_agent_v1_AckResult);
  'errorCode'?: (string);
  'message'?: (string);
  'shardId'?: (string);
}

export interface Ack__Output {
  'refId': (string);
  'result': (_llmgw_agent_v1_AckResult__Output);
  'errorCode': (string);
  'message': (string);
  'shardId': (string);
}
