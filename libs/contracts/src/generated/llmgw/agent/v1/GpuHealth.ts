// Original file: llmgw/agent/v1/hardware.proto

export const GpuHealth = {
  GPU_HEALTH_UNSPECIFIED: 'GPU_HEALTH_UNSPECIFIED',
  GPU_HEALTH_OK: 'GPU_HEALTH_OK',
  GPU_HEALTH_DEGRADED: 'GPU_HEALTH_DEGRADED',
  GPU_HEALTH_FAILED: 'GPU_HEALTH_FAILED',
} as const;

export type GpuHealth =
  | 'GPU_HEALTH_UNSPECIFIED'
  | 0
  | 'GPU_HEALTH_OK'
  | 1
  | 'GPU_HEALTH_DEGRADED'
  | 2
  | 'GPU_HEALTH_FAILED'
  | 3

export type GpuHealth__Output = typeof GpuHealth[keyof typeof GpuHealth]
