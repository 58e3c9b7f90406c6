// Original file: llmgw/agent/v1/stats.proto


export interface LoraState {
  'maxLora'?: (number);
  'running'?: (string)[];
  'waiting'?: (string)[];
}

export interface LoraState__Output {
  'maxLora': (number);
  'running': (string)[];
  'waiting': (string)[];
}
