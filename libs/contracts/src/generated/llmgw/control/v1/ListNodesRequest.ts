// Original file: llmgw/control/v1/control.proto


export interface ListNodesRequest {
  'pageSize'?: (number);
  'page'?: (number);
  'state'?: (string);
}

export interface ListNodesRequest__Output {
  'pageSize': (number);
  'page': (number);
  'state': (string);
}
