// Original file: llmgw/agent/v1/agent.proto


export interface StopShard {
  'commandId'?: (string);
  'shardId'?: (string);
  'graceMs'?: (number);
  'reason'?: (string);
}

export interface StopShard__Output {
  'commandId': (string);
  'shardId': (string);
  'graceMs': (number);
  'reason': (string);
}
