// Original file: llmgw/agent/v1/agent.proto

import type { LogLine as _llmgw_agent_v1_LogLine, LogLine__Output as _llmgw_agent_v1_LogLine__Output } from '../../../llmgw/agent/v1/LogLine';

export interface LogsReply {
  'requestId'?: (string);
  'seq'?: (number);
  'lines'?: (_llmgw_agent_v1_LogLine)[];
  'eof'?: (boolean);
  'errorCode'?: (string);
  'errorMessage'?: (string);
  'truncated'?: (boolean);
}

export interface LogsReply__Output {
  'requestId': (string);
  'seq': (number);
  'lines': (_llmgw_agent_v1_LogLine__Output)[];
  'eof': (boolean);
  'errorCode': (string);
  'errorMessage': (string);
  'truncated': (boolean);
}
