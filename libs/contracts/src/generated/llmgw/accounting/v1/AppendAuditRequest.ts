// Original file: llmgw/accounting/v1/accounting.proto


export interface AppendAuditRequest {
  'action'?: (string);
  'targetType'?: (string);
  'targetId'?: (string);
  'details'?: (string);
}

export interface AppendAuditRequest__Output {
  'action': (string);
  'targetType': (string);
  'targetId': (string);
  'details': (string);
}
