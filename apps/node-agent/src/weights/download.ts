import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { ManifestFile } from './manifest';
import type { Throttle } from './throttle';

/** A download that cannot succeed by retrying (digest, size, 4xx): the shard fails with it. */
export class WeightsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WeightsError';
  }
}

export interface FileDownload {
  url: string;
  /** Where the bytes are written (resumed from when it exists). */
  dest: string;
  file: ManifestFile;
  headers: Record<string, string>;
  throttle: Throttle;
  /** Bytes that arrived (for progress); negative when a restart discarded some. */
  onBytes: (n: number) => void;
  /** Attempts after a cut connection or a 5xx before giving up. */
  maxAttempts?: number;
  signal?: AbortSignal;
  /** Told about each resume (never with the headers). */
  onRetry?: (info: { file: string; attempt: number; from: number; reason: string }) => void;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

const RETRYABLE = (status: number) => status >= 500 || status === 408 || status === 429;

/**
 * Fetches one manifest file into `dest`, resuming with an HTTP Range request
 * from what is already there (after a cut connection, or from an earlier
 * agent process), then checks its size and sha256. A digest mismatch deletes
 * the bytes and throws a WeightsError naming the file.
 */
export async function downloadFile(d: FileDownload): Promise<void> {
  const max = d.maxAttempts ?? 8;
  let attempt = 0;
  for (;;) {
    d.signal?.throwIfAborted();
    let have = await sizeOf(d.dest);
    if (have > d.file.size) {
      await rm(d.dest, { force: true });
      d.onBytes(-have);
      have = 0;
    }
    try {
      if (have < d.file.size) await fetchInto(d, have);
      break;
    } catch (e) {
      if (e instanceof WeightsError || d.signal?.aborted) throw e;
      attempt++;
      if (attempt >= max) throw new WeightsError(`file ${d.file.path}: download failed after ${attempt} attempts: ${(e as Error).message}`);
      d.onRetry?.({ file: d.file.path, attempt, from: await sizeOf(d.dest), reason: (e as Error).message });
      await new Promise((r) => setTimeout(r, Math.min(2_000, 50 * 2 ** attempt)));
    }
  }
  const got = await sizeOf(d.dest);
  if (got !== d.file.size) throw new WeightsError(`file ${d.file.path}: ${got} bytes, the manifest says ${d.file.size}`);
  const digest = await sha256File(d.dest);
  if (digest !== d.file.sha256) {
    await rm(d.dest, { force: true });
    d.onBytes(-got);
    throw new WeightsError(`file ${d.file.path}: sha256 ${digest} does not match the manifest's ${d.file.sha256}`);
  }
}

interface Answer {
  status: number;
  body: IncomingMessage;
}

/** node:http rather than fetch: bytes that arrived before a cut are delivered, not dropped with the error. */
function get(url: string, headers: Record<string, string>, signal: AbortSignal | undefined, hops = 5): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? httpsGet : httpGet)(u, { headers, signal }, (res) => {
      const loc = res.headers.location;
      if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && loc && hops > 0) {
        res.resume();
        const next = new URL(loc, u);
        // Credentials go only to the mirror's own origin.
        const h = next.origin === u.origin ? headers : Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'authorization'));
        get(next.toString(), h, signal, hops - 1).then(resolve, reject);
        return;
      }
      resolve({ status: res.statusCode ?? 0, body: res });
    });
    req.on('error', reject);
  });
}

async function fetchInto(d: FileDownload, have: number): Promise<void> {
  const headers: Record<string, string> = { ...d.headers, 'accept-encoding': 'identity' };
  if (have > 0) headers.range = `bytes=${have}-`;
  const res = await get(d.url, headers, d.signal);
  // (get resolves in the response callback; nothing of the body has been read yet)
  if (res.status !== 200 && res.status !== 206) {
    res.body.resume();
    const msg = `GET ${d.file.path} answered ${res.status}`;
    if (RETRYABLE(res.status)) throw new Error(msg);
    throw new WeightsError(
      `file ${d.file.path}: the mirror answered ${res.status}${res.status === 401 || res.status === 403 ? ' (check the mirror credentials)' : ''}`,
    );
  }
  // 200 to a range request: the mirror sends the whole file; start over.
  const from = res.status === 206 ? have : 0;
  if (from === 0 && have > 0) d.onBytes(-have);
  // Listening before the first await: a cut while the file opens must not go unseen.
  const chunks = arrivals(res.body);
  const fh = await open(d.dest, from === 0 ? 'w' : 'a', 0o600);
  let written = from;
  try {
    for (;;) {
      const next = await chunks.next();
      if (next.error) throw new Error(`connection lost after ${written + next.chunk.byteLength} of ${d.file.size} bytes: ${next.error.message}`);
      if (next.done && !next.chunk.byteLength) break;
      const chunk = next.chunk;
      if (written + chunk.byteLength > d.file.size)
        throw new WeightsError(`file ${d.file.path}: the mirror sent more than the manifest's ${d.file.size} bytes`);
      // What arrived while the agent was busy comes as one chunk, up to a whole file: it goes out in
      // pieces of at most the throttle's bucket, so the bytes counted (and the rate shown) follow
      // the cap instead of jumping by the whole chunk at once.
      for (let off = 0; off < chunk.byteLength;) {
        const piece = d.throttle.piece(chunk.byteLength - off);
        await d.throttle.take(piece, d.signal);
        await fh.write(chunk.subarray(off, off + piece));
        off += piece;
        written += piece;
        d.onBytes(piece);
      }
    }
  } catch (e) {
    // What arrived before a cut is kept: the next attempt resumes after it.
    if (!(e instanceof WeightsError)) {
      const rest = chunks.drain();
      if (rest.byteLength && written + rest.byteLength <= d.file.size) {
        await fh.write(rest);
        written += rest.byteLength;
        d.onBytes(rest.byteLength);
      }
    }
    throw e;
  } finally {
    res.body.destroy();
    await fh.close();
  }
  if (written < d.file.size) throw new Error(`connection ended after ${written} of ${d.file.size} bytes`);
}

/**
 * The body's chunks as they arrive, kept in our own queue: a stream that
 * errors drops what it buffered, and a resume wants every byte that came.
 * The socket is paused while 1 MiB waits to be written.
 */
function arrivals(body: IncomingMessage) {
  const queue: Buffer[] = [];
  let queued = 0;
  let ended = false;
  let error: Error | undefined;
  let wake: (() => void) | undefined;
  const poke = () => {
    wake?.();
    wake = undefined;
  };
  body.on('data', (c: Buffer) => {
    queue.push(c);
    queued += c.byteLength;
    if (queued > 1 << 20) body.pause();
    poke();
  });
  body.on('end', () => {
    ended = true;
    poke();
  });
  body.on('error', (e) => {
    error = e;
    poke();
  });
  body.on('aborted', () => {
    error ??= new Error('aborted');
    poke();
  });
  body.on('close', () => {
    if (!ended) error ??= new Error('closed');
    poke();
  });
  const take = (): Buffer => {
    const c = queue.length === 1 ? queue[0] : Buffer.concat(queue);
    queue.length = 0;
    queued = 0;
    body.resume();
    return c;
  };
  return {
    async next(): Promise<{ chunk: Buffer; done: boolean; error?: Error }> {
      while (!queue.length && !ended && !error) await new Promise<void>((r) => (wake = r));
      if (queue.length) return { chunk: take(), done: false };
      return { chunk: Buffer.alloc(0), done: true, ...(error && !ended ? { error } : {}) };
    },
    drain: (): Buffer => (queue.length ? take() : Buffer.alloc(0)),
  };
}
