import { DEFAULT_BANDS as CORE_BANDS, DEFAULT_ADMISSION_CONFIG } from '@llmgw/admission-core';
import { DEFAULT_BANDS, DEFAULT_KV_CEILING, DEFAULT_TARGET_WAITING_PER_REPLICA } from '@llmgw/contracts';
import { createDefaultRegistry, DEFAULT_SATURATION, type KvScorer, type QueueScorer } from '@llmgw/scheduling';
import { DEFAULT_BAND_CONFIGS, toAdmissionCoreConfig } from './admission-core';

// The shared defaults are defined once (@llmgw/contracts); every place that applies them reads these.
describe('shared defaults', () => {
  it('are the four default bands and the default saturation thresholds', () => {
    expect(DEFAULT_BANDS.map((b) => b.name)).toEqual(['platinum', 'gold', 'silver', 'bronze']);
    expect([DEFAULT_TARGET_WAITING_PER_REPLICA, DEFAULT_KV_CEILING]).toEqual([4, 0.9]);
  });

  it('admission-core, config and scheduling all take them from here', () => {
    expect(CORE_BANDS).toBe(DEFAULT_BANDS);
    expect(DEFAULT_BAND_CONFIGS.map((b) => [b.name, b.priority, b.saturation_ceiling])).toEqual(
      DEFAULT_BANDS.map((b) => [b.name, b.priority, b.saturationCeiling]),
    );
    expect(DEFAULT_ADMISSION_CONFIG).toMatchObject({ targetWaitingPerReplica: DEFAULT_TARGET_WAITING_PER_REPLICA, kvCeiling: DEFAULT_KV_CEILING });
    expect(toAdmissionCoreConfig({})).toMatchObject({ targetWaitingPerReplica: DEFAULT_TARGET_WAITING_PER_REPLICA, kvCeiling: DEFAULT_KV_CEILING });
    expect(DEFAULT_SATURATION).toEqual({ targetWaitingPerReplica: DEFAULT_TARGET_WAITING_PER_REPLICA, kvCeiling: DEFAULT_KV_CEILING });
    const reg = createDefaultRegistry();
    expect((reg.create('scorer', 'queue-scorer', 'q') as QueueScorer).params.target_waiting).toBe(DEFAULT_TARGET_WAITING_PER_REPLICA);
    expect((reg.create('scorer', 'kv-scorer', 'k') as KvScorer).params.ceiling).toBe(DEFAULT_KV_CEILING);
  });
});
