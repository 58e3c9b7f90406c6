import { startTestMirror, testBytes, waitUntil, type TestMirror } from '@llmgw/testing';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '@llmgw/observability';
import { WeightsCache, type WeightsCacheOptions } from './cache';
import { WeightsError } from './download';
import { parseManifest } from './manifest';
import { formatProgress } from './progress';
import { authHeader, cacheKey, sourceUrls, type WeightsSource } from './source';
import { Throttle } from './throttle';

const FILES = { 'config.json': testBytes(300, 1), 'model-00001.safetensors': testBytes(96 * 1024, 2), 'model-00002.safetensors': testBytes(64 * 1024, 3) };
const TOTAL = Object.values(FILES).reduce((a, b) => a + b.length, 0);

describe('weights cache', () => {
  let dir: string;
  let mirror: TestMirror;
  const mirrors: TestMirror[] = [];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-weights-'));
    mirror = await startTestMirror(FILES);
    mirrors.push(mirror);
  });
  afterEach(async () => {
    rmSync(dir, { recursive: true, force: true });
    await Promise.all(mirrors.splice(0).map((m) => m.close()));
  });
  const src = (m = mirror): WeightsSource & { kind: 'mirror' } => ({ kind: 'mirror', baseUrl: m.url, manifest: 'manifest.json' });
  const cache = (o: Partial<WeightsCacheOptions> = {}) =>
    new WeightsCache({ dir, minFreeBytes: 0, bytesPerSecond: 0, parallelFiles: 2, freeBytes: async () => 1e12, ...o });
  const fileRequests = (m: TestMirror) => m.requests.filter((r) => r.path.endsWith('.safetensors') || r.path.endsWith('config.json'));

  it('downloads every file, verifies it and moves the model into place', async () => {
    const got = await cache().ensure(src());
    expect(got.bytes).toBe(TOTAL);
    for (const [name, b] of Object.entries(FILES)) expect(readFileSync(join(got.path, name)).equals(b)).toBe(true);
    expect(existsSync(join(dir, '.partial', got.key))).toBe(false);
    // present now: a second ensure asks the mirror for nothing
    const before = mirror.requests.length;
    await cache().ensure(src());
    expect(mirror.requests.length).toBe(before);
  });

  it('resumes a file with an HTTP Range request after the connection is cut halfway, and the digest matches', async () => {
    mirror.cutOnce('model-00001.safetensors', 48 * 1024);
    const got = await cache().ensure(src());
    expect(readFileSync(join(got.path, 'model-00001.safetensors')).equals(FILES['model-00001.safetensors'])).toBe(true);
    const reqs = mirror.requests.filter((r) => r.path.endsWith('model-00001.safetensors'));
    expect(reqs).toHaveLength(2);
    expect(reqs[0].range).toBeUndefined();
    const from = Number(/^bytes=(\d+)-$/.exec(reqs[1].range ?? '')?.[1]);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThanOrEqual(48 * 1024);
  });

  it('refuses a file whose digest does not match, naming the file, and leaves no model in place', async () => {
    mirror.corrupt('model-00002.safetensors');
    const c = cache();
    const err = await c.ensure(src()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WeightsError);
    expect((err as Error).message).toContain('model-00002.safetensors');
    expect((err as Error).message).toContain('sha256');
    expect(existsSync(join(dir, cacheKey(src())))).toBe(false);
    expect(await c.list()).toEqual([]);
  });

  it('refuses before downloading when the disk has no room, with the reason', async () => {
    const err = await cache({ freeBytes: async () => TOTAL + 1000, minFreeBytes: 4096 })
      .ensure(src())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WeightsError);
    expect((err as Error).message).toMatch(/not enough disk .* needs 164140 more bytes, 165140 are free and 4096 must stay free/);
    expect(fileRequests(mirror)).toEqual([]);
  });

  it('downloads once for every shard that needs the model at the same time', async () => {
    const c = cache();
    const [a, b, d] = await Promise.all([c.ensure(src()), c.ensure(src()), c.ensure(src())]);
    expect(a.path).toBe(b.path);
    expect(d.path).toBe(a.path);
    for (const name of Object.keys(FILES)) expect(mirror.requests.filter((r) => r.path.endsWith(name))).toHaveLength(1);
  });

  it('reclaims least recently used models, never one in use, keeping the free-space floor', async () => {
    const other = await startTestMirror({ 'w.bin': testBytes(TOTAL, 9) }, { prefix: '/other/' });
    const third = await startTestMirror({ 'w.bin': testBytes(TOTAL, 10) }, { prefix: '/third/' });
    mirrors.push(other, third);
    let t = 1_000_000;
    const inUse = new Set<string>();
    // The disk: 3 × TOTAL + floor; each model present takes TOTAL of it.
    const floor = 1000;
    const disk = 3 * TOTAL + floor;
    const used = async () => (await c.list()).reduce((a, m) => a + m.bytes, 0);
    const c: WeightsCache = cache({ now: () => t, inUse: () => inUse, minFreeBytes: floor, freeBytes: async () => disk - (await used()) });
    const a = await c.ensure(src());
    t += 1000;
    const b = await c.ensure(src(other));
    t += 1000;
    await c.ensure(src()); // a used again: b is now the least recently used
    t += 1000;
    inUse.add(b.key);
    // third fits without reclaiming (3 models + floor)
    await c.ensure(src(third));
    expect((await c.list()).map((m) => m.key).sort()).toEqual([a.key, b.key, c.keyOf(src(third))].sort());
    // a fourth needs room: b is in use and least recently used, so a goes (then the third, if needed)
    const fourth = await startTestMirror({ 'w.bin': testBytes(TOTAL, 11) }, { prefix: '/fourth/' });
    mirrors.push(fourth);
    t += 1000;
    await c.ensure(src(fourth));
    const keys = (await c.list()).map((m) => m.key);
    expect(keys).toContain(b.key);
    expect(keys).not.toContain(a.key);
    expect(keys).toContain(c.keyOf(src(fourth)));
    expect(disk - (await used())).toBeGreaterThanOrEqual(floor);
    // everything left in use: nothing can be reclaimed, the next model is refused
    for (const k of keys) inUse.add(k);
    const fifth = await startTestMirror({ 'w.bin': testBytes(TOTAL, 12) }, { prefix: '/fifth/' });
    mirrors.push(fifth);
    await expect(c.ensure(src(fifth))).rejects.toThrow(/not enough disk/);
    expect((await c.list()).map((m) => m.key).sort()).toEqual([...keys].sort());
  });

  it('reads mirror credentials from a file or the environment and never logs them', async () => {
    const secured = await startTestMirror(FILES, { token: 'mirror-token-s3cr3t' });
    mirrors.push(secured);
    const lines: string[] = [];
    const log = createLogger({
      service: 'test',
      level: 'debug',
      destination: new Writable({
        write: (c, _e, cb) => {
          lines.push(String(c));
          cb();
        },
      }),
    });
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'mirror-token-s3cr3t\n');
    secured.cutOnce('model-00001.safetensors', 8192);
    const fromFile = await cache({ log }).ensure({ ...src(secured), credentials: { file: tokenFile } });
    expect(fromFile.bytes).toBe(TOTAL);
    rmSync(fromFile.path, { recursive: true });
    const fromEnv = await cache({ log, env: { MIRROR_TOKEN: 'mirror-token-s3cr3t' } }).ensure({ ...src(secured), credentials: { env: 'MIRROR_TOKEN' } });
    rmSync(fromEnv.path, { recursive: true });
    await expect(cache({ log }).ensure(src(secured))).rejects.toThrow(/answered 401 \(check the mirror credentials\)/);
    expect(() => authHeader({ env: 'NOT_SET_ANYWHERE' }, {})).toThrow('environment variable NOT_SET_ANYWHERE is not set');
    expect(lines.join('')).toContain('resuming');
    expect(lines.join('')).not.toContain('s3cr3t');
  });

  it('caps the bandwidth of all downloads together and reports progress with rate and ETA', async () => {
    const c = cache({ bytesPerSecond: 64 * 1024, parallelFiles: 3 });
    const key = c.keyOf(src());
    const p = c.ensure(src());
    const seen: string[] = [];
    await waitUntil(() => {
      const pr = c.progress(key);
      if (pr && pr.bytesDone > 0 && pr.bytesDone < pr.bytesTotal && pr.rateBps > 0) seen.push(formatProgress(pr));
      return seen.length > 0;
    }, 'progress during a throttled download');
    await p;
    expect(seen[0]).toMatch(/^\d+(\.\d)? (B|KiB)\/160\.3 KiB \d+(\.\d)? (B|KiB|MiB)\/s ETA [0-9hms]+$/);
    expect(c.progress(key)).toBeUndefined();
  });

  it('lets an eighth of a second through, holds bytes until the clock has moved, and a bigger chunk leaves the bucket in debt', async () => {
    let t = 0;
    const th = new Throttle(1000, () => t);
    expect(th.burst).toBe(125);
    await th.take(125);
    let passed = false;
    const next = th.take(500).then(() => (passed = true));
    await new Promise((r) => setImmediate(r));
    expect(passed).toBe(false);
    t += 124;
    await new Promise((r) => setImmediate(r));
    expect(passed).toBe(false);
    t += 1;
    await next;
    // 500 passed on a full bucket of 125: 375 owed, so the next 100 wait 475 ms.
    passed = false;
    const after = th.take(100).then(() => (passed = true));
    t += 474;
    await new Promise((r) => setImmediate(r));
    expect(passed).toBe(false);
    t += 1;
    await after;
  });

  it('keeps ten seconds of 700-byte chunks from a full bucket within the cap plus one bucket and one chunk', async () => {
    let t = 0;
    // The throttle's waits move the clock: ten seconds run at once.
    const th = new Throttle(
      1000,
      () => t,
      async (ms) => void (t += ms),
    );
    let bytes = 0;
    for (;;) {
      await th.take(700);
      if (t > 10_000) break;
      bytes += 700;
    }
    expect(bytes).toBeLessThanOrEqual(10_000 + 125 + 700);
    expect(bytes).toBeGreaterThanOrEqual(10_000 - 700);
  });

  it('passes a chunk larger than the bucket in bucket-sized pieces, at the cap from the first second', async () => {
    let t = 0;
    const th = new Throttle(
      192 * 1024,
      () => t,
      async (ms) => void (t += ms),
    );
    expect(th.piece(320 * 1024)).toBe(24 * 1024);
    expect(th.piece(100)).toBe(100);
    expect(new Throttle(0).piece(320 * 1024)).toBe(320 * 1024);
    // A whole 320 KiB file that arrived at once, as the download loop sends it.
    let released = 0;
    let inFirstSecond = 0;
    for (let left = 320 * 1024; left > 0;) {
      const piece = th.piece(left);
      await th.take(piece);
      left -= piece;
      released += piece;
      if (t <= 1000) inFirstSecond = released;
    }
    expect(inFirstSecond).toBeLessThanOrEqual(192 * 1024 + 24 * 1024);
    expect(released).toBe(320 * 1024);
  });

  it('validates manifests and source URLs', () => {
    expect(() => parseManifest({ files: [{ path: '../etc/passwd', size: 1, sha256: 'a'.repeat(64) }] }, 'm')).toThrow(/files.0.path: must be a relative path/);
    expect(() => parseManifest({ files: [] }, 'm')).toThrow(/at least one file/);
    expect(() => parseManifest({ files: [{ path: 'a', size: 1, sha256: 'x' }] }, 'm')).toThrow(/sha256: must be 64/);
    expect(sourceUrls({ kind: 'mirror', baseUrl: 'https://hf-mirror.internal/org/model/resolve/main', manifest: 'llmgw-manifest.json' })).toEqual({
      base: 'https://hf-mirror.internal/org/model/resolve/main/',
      manifest: 'https://hf-mirror.internal/org/model/resolve/main/llmgw-manifest.json',
    });
  });
});
