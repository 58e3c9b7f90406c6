import type { agentV1 } from '@llmgw/contracts';
import { join } from 'node:path';
import type { Engine, NodeContext } from '../engines/engine';
import { WeightsCache } from '../weights/cache';
import { Supervisor } from './supervisor';
import { weightsInUse } from './weights-step';

/**
 * For specs: a supervisor with a model cache under `<dir>/models` (unlimited
 * fake free space, progress every 50 ms, no restarts) running `engine` as
 * the `sim` engine.
 */
export function weightsSupervisor(o: {
  dir: string;
  engine: Engine;
  node: NodeContext;
  bytesPerSecond?: number;
  onStatus: (s: agentV1.ShardStatus__Output) => void;
}): { sup: Supervisor; cache: WeightsCache; cacheDir: string } {
  const cacheDir = join(o.dir, 'models');
  const cache: WeightsCache = new WeightsCache({
    dir: cacheDir,
    minFreeBytes: 0,
    bytesPerSecond: o.bytesPerSecond ?? 0,
    parallelFiles: 2,
    freeBytes: async () => 1e12,
    inUse: () => weightsInUse(sup.running().flatMap((s) => (s.spec ? [s.spec] : []))),
  });
  const sup: Supervisor = new Supervisor({
    workDir: o.dir,
    engines: new Map([['sim', o.engine]]),
    node: o.node,
    logRingLines: 50,
    weights: { cache, dir: cacheDir, progressEveryMs: 50 },
    timings: {
      healthIntervalMs: 50,
      stopGraceMs: 1_000,
      drainTimeoutMs: 1_000,
      startupTimeoutMs: 10_000,
      maxRestarts: 0,
      restartBackoffMs: 10,
      restartBackoffMaxMs: 10,
    },
    onStatus: o.onStatus,
  });
  return { sup, cache, cacheDir };
}
