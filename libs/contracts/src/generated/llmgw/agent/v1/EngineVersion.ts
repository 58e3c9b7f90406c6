// Original file: llmgw/agent/v1/hardware.proto


export interface EngineVersion {
  'engine'?: (string);
  'version'?: (string);
  'binary'?: (string);
  'error'?: (string);
}

export interface EngineVersion__Output {
  'engine': (string);
  'version': (string);
  'binary': (string);
  'error': (string);
}
