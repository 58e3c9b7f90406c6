// Original file: llmgw/control/v1/control.proto


export interface Quota {
  'scope'?: (string);
  'name'?: (string);
  'capacityClass'?: (string);
  'guaranteeGpus'?: (number);
  'limitGpus'?: (number);
  'hasLimit'?: (boolean);
  'usedGpus'?: (number);
  'overridden'?: (boolean);
}

export interface Quota__Output {
  'scope': (string);
  'name': (string);
  'capacityClass': (string);
  'guaranteeGpus': (number);
  'limitGpus': (number);
  'hasLimit': (boolean);
  'usedGpus': (number);
  'overridden': (boolean);
}
