// Original file: llmgw/control/v1/control.proto

import type { ReplicaState as _llmgw_control_v1_ReplicaState, ReplicaState__Output as _llmgw_control_v1_ReplicaState__Output } from '../../../llmgw/control/v1/ReplicaState';
import type { ReplicaShard as _llmgw_control_v1_ReplicaShard, ReplicaShard__Output as _llmgw_control_v1_ReplicaShard__Output } from '../../../llmgw/control/v1/ReplicaShard';
import type { Long } from '@grpc/proto-loader';

export interface Replica {
  'replicaId'?: (string);
  'model'?: (string);
  'profile'?: (string);
  'fabric'?: (string);
  'gpuClass'?: (string);
  'engine'?: (string);
  'state'?: (_llmgw_control_v1_ReplicaState);
  'endpoint'?: (string);
  'shards'?: (_llmgw_control_v1_ReplicaShard)[];
  'createdAtMs'?: (number | string | Long);
  'readyAtMs'?: (number | string | Long);
  'adopted'?: (boolean);
  'message'?: (string);
}

export interface Replica__Output {
  'replicaId': (string);
  'model': (string);
  'profile': (string);
  'fabric': (string);
  'gpuClass': (string);
  'engine': (string);
  'state': (_llmgw_control_v1_ReplicaState__Output);
  'endpoint': (string);
  'shards': (_llmgw_control_v1_ReplicaShard__Output)[];
  'createdAtMs': (number);
  'readyAtMs': (number);
  'adopted': (boolean);
  'message': (string);
}
