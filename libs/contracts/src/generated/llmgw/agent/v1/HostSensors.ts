// Original file: llmgw/agent/v1/agent.proto


export interface HostSensors {
  'cpuTemperatureCelsius'?: (number | string);
  'cpuPowerWatts'?: (number | string);
}

export interface HostSensors__Output {
  'cpuTemperatureCelsius': (number);
  'cpuPowerWatts': (number);
}
