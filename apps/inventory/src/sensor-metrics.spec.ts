import { Registry } from 'prom-client';
import type { FleetNode } from '@llmgw/inventory-rpc';
import { createInventoryMetrics, throttled } from './metrics';

const gpu = (index: number, temperatureCelsius: number, powerDrawWatts: number, clocksEventReasons: string) =>
  ({
    index,
    health: 'GPU_HEALTH_OK',
    memoryUsedMib: 0,
    foreignMemoryUsedMib: 0,
    temperatureCelsius,
    utilizationPercent: 0,
    xidErrorsTotal: 0,
    eccUncorrectedTotal: 0,
    reasons: [],
    clocksEventReasons,
    powerDrawWatts,
  }) as FleetNode['gpuHealth'][number];

const node = (id: string, connectivity: string, gpuHealth: FleetNode['gpuHealth'], hostSensors: FleetNode['hostSensors']) =>
  ({
    info: { nodeId: id, gpus: [], fabrics: [] },
    connectivity,
    gpuHealth,
    shards: [],
    intent: 'NODE_INTENT_UNSPECIFIED',
    hostSensors,
  }) as unknown as FleetNode;

describe('sensor metrics', () => {
  it('exports what connected nodes report, and nothing for unknown values or gone nodes', async () => {
    const registry = new Registry();
    const fleet = [
      node('n1', 'CONNECTIVITY_CONNECTED', [gpu(0, 37, 79.79, '0x0000000000000001'), gpu(1, 0, 0, '')], { cpuTemperatureCelsius: 52, cpuPowerWatts: 0 }),
      node('n2', 'CONNECTIVITY_CONNECTED', [gpu(0, 88, 690, '0x0000000000000004')], null),
      node('n3', 'CONNECTIVITY_LOST', [gpu(0, 50, 100, '0x0000000000000001')], { cpuTemperatureCelsius: 40, cpuPowerWatts: 120 }),
    ];
    createInventoryMetrics(
      registry,
      () => fleet,
      () => 0,
    );
    const text = await registry.metrics();
    const lines = (name: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`))
        .sort();
    expect(lines('llmgw_gpu_temperature_celsius')).toEqual([
      'llmgw_gpu_temperature_celsius{node="n1",gpu="0"} 37',
      'llmgw_gpu_temperature_celsius{node="n2",gpu="0"} 88',
    ]);
    expect(lines('llmgw_gpu_power_watts')).toEqual(['llmgw_gpu_power_watts{node="n1",gpu="0"} 79.79', 'llmgw_gpu_power_watts{node="n2",gpu="0"} 690']);
    // Idle (0x1) is not throttling; SW power cap (0x4) is.
    expect(lines('llmgw_gpu_throttled')).toEqual(['llmgw_gpu_throttled{node="n1",gpu="0"} 0', 'llmgw_gpu_throttled{node="n2",gpu="0"} 1']);
    expect(lines('llmgw_node_cpu_temperature_celsius')).toEqual(['llmgw_node_cpu_temperature_celsius{node="n1"} 52']);
    expect(lines('llmgw_node_cpu_power_watts')).toEqual([]);
  });

  it('reads a clocks event reasons mask as the driver prints it', () => {
    expect(throttled('0x0000000000000001')).toBe(false);
    expect(throttled('0x0000000000000002')).toBe(false);
    expect(throttled('0x0000000000000040')).toBe(true);
    expect(throttled('garbage')).toBe(false);
  });
});
