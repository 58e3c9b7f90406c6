// Original file: llmgw/control/v1/control.proto

import type { Model as _llmgw_control_v1_Model, Model__Output as _llmgw_control_v1_Model__Output } from '../../../llmgw/control/v1/Model';

export interface ListModelsResponse {
  'models'?: (_llmgw_control_v1_Model)[];
}

export interface ListModelsResponse__Output {
  'models': (_llmgw_control_v1_Model__Output)[];
}
