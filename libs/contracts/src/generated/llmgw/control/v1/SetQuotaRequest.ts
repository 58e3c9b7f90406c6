// Original file: llmgw/control/v1/control.proto


export interface SetQuotaRequest {
  'scope'?: (string);
  'name'?: (string);
  'capacityClass'?: (string);
  'guaranteeGpus'?: (number);
  'limitGpus'?: (number);
  'hasLimit'?: (boolean);
  'clear'?: (boolean);
}

export interface SetQuotaRequest__Output {
  'scope': (string);
  'name': (string);
  'capacityClass': (string);
  'guaranteeGpus': (number);
  'limitGpus': (number);
  'hasLimit': (boolean);
  'clear': (boolean);
}
