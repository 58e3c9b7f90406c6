// Original file: llmgw/agent/v1/agent.proto

import type { LogStream as _llmgw_agent_v1_LogStream, LogStream__Output as _llmgw_agent_v1_LogStream__Output } from '../../../llmgw/agent/v1/LogStream';
import type { Long } from '@grpc/proto-loader';

export interface LogLine {
  'atMs'?: (number | string | Long);
  'stream'?: (_llmgw_agent_v1_LogStream);
  'text'?: (string);
}

export interface LogLine__Output {
  'atMs': (number);
  'stream': (_llmgw_agent_v1_LogStream__Output);
  'text': (string);
}
