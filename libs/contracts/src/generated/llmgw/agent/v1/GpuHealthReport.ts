// Original file: llmgw/agent/v1/hardware.proto

import type { GpuHealth as _llmgw_agent_v1_GpuHealth, GpuHealth__Output as _llmgw_agent_v1_GpuHealth__Output } from '../../../llmgw/agent/v1/GpuHealth';
import type { Long } from '@grpc/proto-loader';

export interface GpuHealthReport {
  'index'?: (number);
  'health'?: (_llmgw_agent_v1_GpuHealth);
  'memoryUsedMib'?: (number | string | Long);
  'foreignMemoryUsedMib'?: (number | string | Long);
  'temperatureCelsius'?: (number);
  'utilizationPercent'?: (number);
  'xidErrorsTotal'?: (number | string | Long);
  'eccUncorrectedTotal'?: (number | string | Long);
  'reasons'?: (string)[];
  'clocksEventReasons'?: (string);
  'powerDrawWatts'?: (number | string);
}

export interface GpuHealthReport__Output {
  'index': (number);
  'health': (_llmgw_agent_v1_GpuHealth__Output);
  'memoryUsedMib': (number);
  'foreignMemoryUsedMib': (number);
  'temperatureCelsius': (number);
  'utilizationPercent': (number);
  'xidErrorsTotal': (number);
  'eccUncorrectedTotal': (number);
  'reasons': (string)[];
  'clocksEventReasons': (string);
  'powerDrawWatts': (number);
}
