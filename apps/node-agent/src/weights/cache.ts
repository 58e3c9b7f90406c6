import type { Logger } from '@llmgw/observability';
import { mkdir, readdir, readFile, rename, rm, stat, statfs, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { downloadFile, WeightsError } from './download';
import { manifestBytes, parseManifest, type WeightsManifest } from './manifest';
import { ProgressMeter, type DownloadProgress } from './progress';
import { authHeader, cacheKey, sourceUrls, type WeightsSource } from './source';
import { Throttle } from './throttle';

export interface WeightsCacheOptions {
  /** The model cache (agent.yaml `model_cache_dir`). */
  dir: string;
  /** Free space kept under `dir` after every download (`model_cache.min_free`). */
  minFreeBytes: number;
  /** All downloads together carry at most this much (0 = no cap). */
  bytesPerSecond: number;
  /** Files of one model fetched at once. */
  parallelFiles: number;
  /** Free bytes on the filesystem under `dir` (tests pass a fake). */
  freeBytes?: (dir: string) => Promise<number>;
  /** Cache keys a live shard uses: never reclaimed. */
  inUse?: () => ReadonlySet<string>;
  log?: Logger;
  now?: () => number;
  /** Environment the credentials' `env` is read from. */
  env?: NodeJS.ProcessEnv;
}

/** A model present in the cache: the directory to give the engine. */
export interface CachedModel {
  key: string;
  path: string;
  bytes: number;
}

const MARKER = '.llmgw-manifest.json';

async function fsFree(dir: string): Promise<number> {
  const s = await statfs(dir);
  return Number(s.bavail) * Number(s.bsize);
}

interface Job {
  promise: Promise<CachedModel>;
  meter?: ProgressMeter;
}

/**
 * The agent's model cache (docs/models.md, "The cache"). `ensure` makes a
 * source's files present and verified: one download per model however many
 * shards wait for it, free disk checked before the first byte, files fetched
 * in parallel under one bandwidth cap, and the model moved into place with a
 * rename only once every digest matched. Space is reclaimed least recently
 * used first, never from a model a live shard uses, and never below the
 * configured free-space floor.
 */
export class WeightsCache {
  private readonly jobs = new Map<string, Job>();
  private readonly throttle: Throttle;
  private readonly now: () => number;
  private readonly freeBytes: (dir: string) => Promise<number>;

  constructor(private readonly opts: WeightsCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.throttle = new Throttle(opts.bytesPerSecond);
    this.freeBytes = opts.freeBytes ?? fsFree;
  }

  keyOf(src: Exclude<WeightsSource, { kind: 'path' }>): string {
    return cacheKey(src);
  }

  /** Progress of the download for `key`, while one runs. */
  progress(key: string): DownloadProgress | undefined {
    return this.jobs.get(key)?.meter?.snapshot();
  }

  /** Resolves with the model's directory once it is complete and verified; shared by every caller of one key. */
  ensure(src: Exclude<WeightsSource, { kind: 'path' }>): Promise<CachedModel> {
    const key = cacheKey(src);
    const running = this.jobs.get(key);
    if (running) return running.promise;
    const job: Job = { promise: Promise.resolve(undefined as never) };
    job.promise = this.fetchModel(key, src, job).finally(() => this.jobs.delete(key));
    this.jobs.set(key, job);
    return job.promise;
  }

  /** Complete models in the cache, least recently used first. */
  async list(): Promise<Array<CachedModel & { lastUsedMs: number }>> {
    await mkdir(this.opts.dir, { recursive: true });
    const out: Array<CachedModel & { lastUsedMs: number }> = [];
    for (const name of await readdir(this.opts.dir)) {
      if (name.startsWith('.')) continue;
      try {
        const st = await stat(join(this.opts.dir, name, MARKER));
        const m = parseManifest(JSON.parse(await readFile(join(this.opts.dir, name, MARKER), 'utf8')), name);
        out.push({ key: name, path: join(this.opts.dir, name), bytes: manifestBytes(m), lastUsedMs: st.mtimeMs });
      } catch {
        // not a complete model: ignored (a partial download lives under .partial)
      }
    }
    return out.sort((a, b) => a.lastUsedMs - b.lastUsedMs);
  }

  /**
   * Frees at least `bytes` by removing complete models least recently used
   * first, skipping those in use. Returns what was removed.
   */
  async reclaim(bytes: number): Promise<string[]> {
    const inUse = this.opts.inUse?.() ?? new Set<string>();
    const removed: string[] = [];
    let freed = 0;
    for (const m of await this.list()) {
      if (freed >= bytes) break;
      if (inUse.has(m.key) || this.jobs.has(m.key)) continue;
      await rm(m.path, { recursive: true, force: true });
      freed += m.bytes;
      removed.push(m.key);
      this.opts.log?.info({ model: m.key, bytes: m.bytes }, 'model cache: reclaimed');
    }
    return removed;
  }

  private async fetchModel(key: string, src: Exclude<WeightsSource, { kind: 'path' }>, job: Job): Promise<CachedModel> {
    const final = join(this.opts.dir, key);
    await mkdir(this.opts.dir, { recursive: true });
    const present = await this.readComplete(final);
    if (present) {
      await this.touch(final);
      return { key, path: final, bytes: manifestBytes(present) };
    }
    const headers = authHeader(src.credentials, this.opts.env);
    const urls = sourceUrls(src);
    const manifest = await this.fetchManifest(urls.manifest, headers);
    const total = manifestBytes(manifest);
    const staging = join(this.opts.dir, '.partial', key);
    await mkdir(staging, { recursive: true });
    let have = 0;
    for (const f of manifest.files) have += Math.min(f.size, await sizeOf(join(staging, f.path)));
    await this.makeRoom(key, total - have);
    const meter = new ProgressMeter(total, this.now);
    meter.add(have);
    job.meter = meter;
    this.opts.log?.info({ model: key, files: manifest.files.length, bytes: total, resumeFrom: have }, 'model cache: downloading');
    const queue = [...manifest.files];
    const worker = async () => {
      for (let f = queue.shift(); f; f = queue.shift()) {
        const dest = join(staging, f.path);
        await mkdir(dirname(dest), { recursive: true });
        await downloadFile({
          url: new URL(f.path.split('/').map(encodeURIComponent).join('/'), urls.base).toString(),
          dest,
          file: f,
          headers,
          throttle: this.throttle,
          onBytes: (n) => meter.add(n),
          onRetry: (r) => this.opts.log?.warn({ model: key, ...r }, 'model cache: connection lost; resuming'),
        });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.opts.parallelFiles, manifest.files.length)) }, worker));
    await writeFile(join(staging, MARKER), JSON.stringify(manifest));
    await rm(final, { recursive: true, force: true });
    await rename(staging, final);
    this.opts.log?.info({ model: key, bytes: total }, 'model cache: verified and in place');
    return { key, path: final, bytes: total };
  }

  private async makeRoom(key: string, needed: number): Promise<void> {
    const floor = this.opts.minFreeBytes;
    let free = await this.freeBytes(this.opts.dir);
    if (free - needed >= floor) return;
    const removed = await this.reclaim(needed + floor - free);
    if (removed.length) free = await this.freeBytes(this.opts.dir);
    if (free - needed < floor) {
      throw new WeightsError(
        `not enough disk for ${key} under ${this.opts.dir}: it needs ${needed} more bytes, ${free} are free and ${floor} must stay free` +
          ` (nothing more can be reclaimed: the other cached models are in use or none are left)`,
      );
    }
  }

  private async fetchManifest(url: string, headers: Record<string, string>): Promise<WeightsManifest> {
    let res: Response;
    try {
      res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
    } catch (e) {
      throw new Error(`weights manifest ${url}: ${(e as Error).message}`);
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new WeightsError(
        `weights manifest ${url}: the mirror answered ${res.status}${res.status === 401 || res.status === 403 ? ' (check the mirror credentials)' : ''}`,
      );
    }
    let raw: unknown;
    try {
      raw = await res.json();
    } catch {
      throw new WeightsError(`weights manifest ${url}: not JSON`);
    }
    return parseManifest(raw, url);
  }

  private async readComplete(dir: string): Promise<WeightsManifest | undefined> {
    try {
      return parseManifest(JSON.parse(await readFile(join(dir, MARKER), 'utf8')), dir);
    } catch {
      return undefined;
    }
  }

  private async touch(dir: string): Promise<void> {
    const t = new Date(this.now());
    await utimes(join(dir, MARKER), t, t).catch(() => undefined);
  }
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
