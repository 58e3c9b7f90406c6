import type { controlV1 } from '@llmgw/contracts';
import { sensorCells } from '../src/commands/nodes';
import { topScreen } from '../src/commands/top';

const gpu = (index: number, temperatureCelsius: number, powerDrawWatts: number, clocksEventReasons: string) => ({
  index,
  health: 'GPU_HEALTH_OK',
  memoryUsedMib: 0,
  foreignMemoryUsedMib: 0,
  temperatureCelsius,
  utilizationPercent: 50,
  xidErrorsTotal: 0,
  eccUncorrectedTotal: 0,
  reasons: [],
  clocksEventReasons,
  powerDrawWatts,
});

const node = (
  id: string,
  health: ReturnType<typeof gpu>[],
  host: { cpuTemperatureCelsius: number; cpuPowerWatts: number } | null,
  labels: Record<string, string> = {},
) =>
  ({
    info: { nodeId: id, labels, gpus: health.map((h) => ({ index: h.index, gpuClass: 'h200-140g', memoryTotalMib: 143771 })), fabrics: [] },
    state: 'NODE_STATE_READY',
    gpuHealth: health,
    allocations: [],
    shards: [],
    engineStats: [],
    hostSensors: host,
  }) as unknown as controlV1.Node__Output;

describe('sensor columns (ctl nodes --wide, ctl top)', () => {
  it('hottest GPU, summed power, GPUs held back by more than idling, CPU readings and rack/PDU; "-" when unknown', () => {
    // Values as the H200 capture reports them (37 C, 79.79 W, idle) and a second GPU at its power cap.
    const n = node(
      'gpu-1',
      [gpu(0, 37, 79.79, '0x0000000000000001'), gpu(1, 71, 699.5, '0x0000000000000004')],
      { cpuTemperatureCelsius: 48.5, cpuPowerWatts: 212.3 },
      { rack: 'r12', pdu: 'pdu-3' },
    );
    expect(sensorCells(n)).toEqual(['71', '779', '1/2', '49', '212', 'rack r12, pdu pdu-3']);
    expect(sensorCells(node('vm', [gpu(0, 0, 0, '')], null))).toEqual(['-', '-', '-', '-', '-', '-']);
  });

  it('top shows them beside utilisation', () => {
    const screen = topScreen([node('gpu-1', [gpu(0, 37, 79.79, '0x0000000000000001')], { cpuTemperatureCelsius: 40, cpuPowerWatts: 0 })], 0);
    const [head, row] = screen.split('\n').slice(2, 4);
    expect(head.split(/\s{2,}/)).toEqual(['NODE', 'STATE', 'GPUS FREE', 'UTIL', 'GPU MEM', 'GPU °C', 'GPU W', 'THROTTLED', 'CPU °C', 'CPU W', 'HEALTH']);
    expect(row.split(/\s{2,}/)).toEqual(['gpu-1', 'ready', '1/1 h200-140g', '50%', '0%', '37', '80', '0/1', '40', '-', 'ok']);
  });
});
