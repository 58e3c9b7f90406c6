// Original file: llmgw/control/v1/control.proto

import type { Model as _llmgw_control_v1_Model, Model__Output as _llmgw_control_v1_Model__Output } from '../../../llmgw/control/v1/Model';

export interface SetModelTargetResponse {
  'model'?: (_llmgw_control_v1_Model | null);
  'changed'?: (boolean);
}

export interface SetModelTargetResponse__Output {
  'model': (_llmgw_control_v1_Model__Output | null);
  'changed': (boolean);
}
