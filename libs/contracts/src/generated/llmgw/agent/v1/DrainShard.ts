// Original file: llmgw/agent/v1/agent.proto


export interface DrainShard {
  'commandId'?: (string);
  'shardId'?: (string);
  'timeoutMs'?: (number);
  'reason'?: (string);
}

export interface DrainShard__Output {
  'commandId': (string);
  'shardId': (string);
  'timeoutMs': (number);
  'reason': (string);
}
