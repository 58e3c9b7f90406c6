import type { agentV1 } from '@llmgw/contracts';
import { join } from 'node:path';
import type { WeightsCache } from '../weights/cache';
import { cacheKey, type WeightsSource } from '../weights/source';

type Mirror = Extract<WeightsSource, { kind: 'mirror' }>;

/** The mirror a spec names, if any (ShardSpec.weights). */
export function specWeights(spec: agentV1.ShardSpec__Output): Mirror | undefined {
  const w = spec.weights;
  if (!w?.baseUrl) return undefined;
  const credentials = w.credentialsFile ? { file: w.credentialsFile } : w.credentialsEnv ? { env: w.credentialsEnv } : undefined;
  return { kind: 'mirror', baseUrl: w.baseUrl, manifest: w.manifest || 'manifest.json', ...(credentials ? { credentials } : {}) };
}

/**
 * The spec the engine is built from: with `weights`, its model path is the
 * cache directory the download fills (the same path every time, so an
 * adopted engine's relaunch finds it too).
 */
export function engineSpec(spec: agentV1.ShardSpec__Output, cacheDir: string | undefined): agentV1.ShardSpec__Output {
  const src = specWeights(spec);
  return src && cacheDir ? { ...spec, modelPath: join(cacheDir, cacheKey(src)) } : spec;
}

/** Cache keys of the weights the given specs use (never reclaimed). */
export function weightsInUse(specs: Iterable<agentV1.ShardSpec__Output>): Set<string> {
  const out = new Set<string>();
  for (const s of specs) {
    const src = specWeights(s);
    if (src) out.add(cacheKey(src));
  }
  return out;
}

export interface WeightsStepHooks {
  /** DOWNLOADING with a note, then progress reports while it runs. */
  downloading(message: string): void;
  progress(p: agentV1.DownloadProgress__Output): void;
  /** Whether the shard is still wanted (not stopping, not terminal). */
  wanted(): boolean;
  progressEveryMs: number;
}

/**
 * Makes the spec's weights present before launch. Resolves with '' when the
 * engine may start, or the reason the shard fails (naming the file for a bad
 * digest, or the disk for too little room).
 */
export async function fetchWeights(spec: agentV1.ShardSpec__Output, cache: WeightsCache, hooks: WeightsStepHooks): Promise<string> {
  const src = specWeights(spec);
  if (!src) return '';
  const key = cacheKey(src);
  hooks.downloading(`fetching weights from ${src.baseUrl}`);
  const timer = setInterval(() => {
    const p = cache.progress(key);
    if (p && hooks.wanted()) hooks.progress(p);
  }, hooks.progressEveryMs);
  try {
    await cache.ensure(src);
    return '';
  } catch (e) {
    return `weights: ${(e as Error).message}`;
  } finally {
    clearInterval(timer);
  }
}
