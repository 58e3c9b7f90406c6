// Original file: llmgw/control/v1/control.proto

import type { Profile as _llmgw_control_v1_Profile, Profile__Output as _llmgw_control_v1_Profile__Output } from '../../../llmgw/control/v1/Profile';
import type { Scaling as _llmgw_control_v1_Scaling, Scaling__Output as _llmgw_control_v1_Scaling__Output } from '../../../llmgw/control/v1/Scaling';
import type { AutoscaleStatus as _llmgw_control_v1_AutoscaleStatus, AutoscaleStatus__Output as _llmgw_control_v1_AutoscaleStatus__Output } from '../../../llmgw/control/v1/AutoscaleStatus';
import type { AppliedCapacity as _llmgw_control_v1_AppliedCapacity, AppliedCapacity__Output as _llmgw_control_v1_AppliedCapacity__Output } from '../../../llmgw/control/v1/AppliedCapacity';
import type { Long } from '@grpc/proto-loader';

export interface Model {
  'name'?: (string);
  'aliases'?: (string)[];
  'source'?: (string);
  'profiles'?: (_llmgw_control_v1_Profile)[];
  'scaling'?: (_llmgw_control_v1_Scaling | null);
  'fallbacks'?: (string)[];
  'replicasDesired'?: (number);
  'replicasReady'?: (number);
  'replicasTotal'?: (number);
  'scalingOverridden'?: (boolean);
  'scalingMode'?: (string);
  'lastDemandMs'?: (number | string | Long);
  'capacityClass'?: (string);
  'project'?: (string);
  'gpusUsed'?: (number);
  'autoscale'?: (_llmgw_control_v1_AutoscaleStatus | null);
  'appliedCapacity'?: (_llmgw_control_v1_AppliedCapacity | null);
}

export interface Model__Output {
  'name': (string);
  'aliases': (string)[];
  'source': (string);
  'profiles': (_llmgw_control_v1_Profile__Output)[];
  'scaling': (_llmgw_control_v1_Scaling__Output | null);
  'fallbacks': (string)[];
  'replicasDesired': (number);
  'replicasReady': (number);
  'replicasTotal': (number);
  'scalingOverridden': (boolean);
  'scalingMode': (string);
  'lastDemandMs': (number);
  'capacityClass': (string);
  'project': (string);
  'gpusUsed': (number);
  'autoscale': (_llmgw_control_v1_AutoscaleStatus__Output | null);
  'appliedCapacity': (_llmgw_control_v1_AppliedCapacity__Output | null);
}
