// Original file: llmgw/agent/v1/shard.proto


export interface WeightsSource {
  'baseUrl'?: (string);
  'manifest'?: (string);
  'credentialsFile'?: (string);
  'credentialsEnv'?: (string);
}

export interface WeightsSource__Output {
  'baseUrl': (string);
  'manifest': (string);
  'credentialsFile': (string);
  'credentialsEnv': (string);
}
