// Original file: llmgw/agent/v1/shard.proto

import type { Long } from '@grpc/proto-loader';

export interface DownloadProgress {
  'bytesDone'?: (number | string | Long);
  'bytesTotal'?: (number | string | Long);
  'rateBps'?: (number | string | Long);
  'etaMs'?: (number | string | Long);
}

export interface DownloadProgress__Output {
  'bytesDone': (number);
  'bytesTotal': (number);
  'rateBps': (number);
  'etaMs': (number);
}
