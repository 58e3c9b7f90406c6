import type { agentV1 } from '@llmgw/contracts';
import { join } from 'node:path';
import type { WeightsCache } from '../weights/cache';
import { cacheKey, type WeightsSource } from '../weights/source';

type Mirror = Extract<WeightsSource, { kind: 'mirror' }>;

/** A WeightsSource on the wire as a mirror the cache fetches; undefined when unset. */
function wireMirror(w: agentV1.WeightsSource__Output | null | undefined): Mirror | undefined {
  if (!w?.baseUrl) return undefined;
  const credentials = w.credentialsFile ? { file: w.credentialsFile } : w.credentialsEnv ? { env: w.credentialsEnv } : undefined;
  return { kind: 'mirror', baseUrl: w.baseUrl, manifest: w.manifest || 'manifest.json', ...(credentials ? { credentials } : {}) };
}

/** The mirror a spec names for the model itself, if any (ShardSpec.weights). */
export function specWeights(spec: agentV1.ShardSpec__Output): Mirror | undefined {
  return wireMirror(spec.weights);
}

/** Everything a spec needs fetched before launch: the model's mirror, then each adapter's (what names it in messages). */
export function specMirrors(spec: agentV1.ShardSpec__Output): Array<{ what: string; src: Mirror }> {
  const out: Array<{ what: string; src: Mirror }> = [];
  const model = specWeights(spec);
  if (model) out.push({ what: 'weights', src: model });
  for (const a of spec.adapters ?? []) {
    const src = wireMirror(a.weights);
    if (src) out.push({ what: `adapter ${a.name}`, src });
  }
  return out;
}

/**
 * The spec the engine is built from: with `weights`, its model path is the
 * cache directory the download fills, and so is each fetched adapter's path
 * (the same path every time, so an adopted engine's relaunch finds it too).
 */
export function engineSpec(spec: agentV1.ShardSpec__Output, cacheDir: string | undefined): agentV1.ShardSpec__Output {
  if (!cacheDir || !specMirrors(spec).length) return spec;
  const src = specWeights(spec);
  const adapters = (spec.adapters ?? []).map((a) => {
    const m = wireMirror(a.weights);
    return m ? { ...a, path: join(cacheDir, cacheKey(m)) } : a;
  });
  return { ...spec, ...(src ? { modelPath: join(cacheDir, cacheKey(src)) } : {}), adapters };
}

/** Cache keys of the weights the given specs use, models and adapters (never reclaimed). */
export function weightsInUse(specs: Iterable<agentV1.ShardSpec__Output>): Set<string> {
  const out = new Set<string>();
  for (const s of specs) for (const { src } of specMirrors(s)) out.add(cacheKey(src));
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
  const all = specMirrors(spec);
  if (!all.length) return '';
  let current = cacheKey(all[0].src);
  hooks.downloading(`fetching weights from ${all[0].src.baseUrl}`);
  const timer = setInterval(() => {
    const p = cache.progress(current);
    if (p && hooks.wanted()) hooks.progress(p);
  }, hooks.progressEveryMs);
  try {
    // One at a time: the model first, then each adapter, all through the one cache (its bandwidth cap and reclaim).
    for (const { what, src } of all) {
      if (!hooks.wanted()) return '';
      current = cacheKey(src);
      try {
        await cache.ensure(src);
      } catch (e) {
        return `${what}: ${(e as Error).message}`;
      }
    }
    return '';
  } finally {
    clearInterval(timer);
  }
}
