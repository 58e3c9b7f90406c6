// Original file: llmgw/accounting/v1/accounting.proto

import type { Long } from '@grpc/proto-loader';

export interface CapacityProfile {
  'model'?: (string);
  'profile'?: (string);
  'gpuClass'?: (string);
  'maxConcurrencyAtSlo'?: (number);
  'throughputTokPerSec'?: (number | string);
  'ttftP99Ms'?: (number | string);
  'tpotP99Ms'?: (number | string);
  'sloTtftP99Ms'?: (number | string);
  'sloTpotP99Ms'?: (number | string);
  'relativeCost'?: (number | string);
  'engine'?: (string);
  'engineVersion'?: (string);
  'engineArgs'?: (string)[];
  'promptTokens'?: (number);
  'outputTokens'?: (number);
  'engineWaitingAtSlo'?: (number);
  'kvUsageAtSlo'?: (number | string);
  'measuredAtMs'?: (number | string | Long);
  'replica'?: (string);
  'savedBy'?: (string);
  'resultJson'?: (string);
}

export interface CapacityProfile__Output {
  'model': (string);
  'profile': (string);
  'gpuClass': (string);
  'maxConcurrencyAtSlo': (number);
  'throughputTokPerSec': (number);
  'ttftP99Ms': (number);
  'tpotP99Ms': (number);
  'sloTtftP99Ms': (number);
  'sloTpotP99Ms': (number);
  'relativeCost': (number);
  'engine': (string);
  'engineVersion': (string);
  'engineArgs': (string)[];
  'promptTokens': (number);
  'outputTokens': (number);
  'engineWaitingAtSlo': (number);
  'kvUsageAtSlo': (number);
  'measuredAtMs': (number);
  'replica': (string);
  'savedBy': (string);
  'resultJson': (string);
}
