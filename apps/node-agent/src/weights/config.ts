import { z } from 'zod';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** Bytes as a number or "50GiB", "100MB", "1.5TiB"; produces bytes. */
export const byteSize = () =>
  z.union([z.number().int().min(0), z.string()]).transform((v, ctx) => {
    if (typeof v === 'number') return v;
    const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(v);
    const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
    if (!m || unit === undefined) {
      ctx.addIssue({ code: 'custom', message: `invalid size "${v}" (use e.g. 500MiB, 50GiB, 2TB or bytes)` });
      return z.NEVER;
    }
    return Math.round(Number(m[1]) * unit);
  });

/** agent.yaml `model_cache`: how the agent fetches and keeps weights (docs/models.md, "The cache"). */
export const modelCacheSchema = z
  .object({
    /** Free space kept under model_cache_dir after every download; reclaim happens to keep it. */
    min_free: byteSize().default(20 * 2 ** 30),
    /** All downloads together carry at most this many bytes per second; 0 = no cap. */
    bandwidth: byteSize().default(0),
    /** Files of one model fetched at once. */
    parallel_files: z.number().int().min(1).max(64).default(4),
  })
  .strict()
  .default({ min_free: 20 * 2 ** 30, bandwidth: 0, parallel_files: 4 });
export type ModelCacheConfig = z.output<typeof modelCacheSchema>;
