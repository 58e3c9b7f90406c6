// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface Limit {
  'scopeType'?: (string);
  'scopeId'?: (string);
  'hasRpm'?: (boolean);
  'rpm'?: (number | string | Long);
  'hasTpm'?: (boolean);
  'tpm'?: (number | string | Long);
  'hasBudget'?: (boolean);
  'budgetMicros'?: (number | string | Long);
  'budgetPeriod'?: (string);
  'modelsRestricted'?: (boolean);
  'allowedModels'?: (string)[];
  'updatedAtMs'?: (number | string | Long);
}

export interface Limit__Output {
  'scopeType': (string);
  'scopeId': (string);
  'hasRpm': (boolean);
  'rpm': (number);
  'hasTpm': (boolean);
  'tpm': (number);
  'hasBudget': (boolean);
  'budgetMicros': (number);
  'budgetPeriod': (string);
  'modelsRestricted': (boolean);
  'allowedModels': (string)[];
  'updatedAtMs': (number);
}
