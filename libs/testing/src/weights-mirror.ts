import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A weights mirror for tests: serves `manifest.json` and the files beside it
 * with HTTP Range support, can require a bearer token, and injects faults per
 * file: cut the connection after N bytes (once), or serve other bytes than the
 * manifest's digest. It records every request (path and Range) it saw.
 */
/** The manifest a mirror serves (docs/models.md, "Sources"). */
export interface TestMirrorManifest {
  files: Array<{ path: string; size: number; sha256: string }>;
}

export interface TestMirror {
  url: string;
  manifest: TestMirrorManifest;
  requests: Array<{ path: string; range?: string; auth?: string }>;
  /** Cut the next response for `file` after `afterBytes` bytes of body. */
  cutOnce(file: string, afterBytes: number): void;
  /** Serve these bytes for `file` (its manifest digest stays the original's). */
  corrupt(file: string): void;
  /** Hold every body chunk this long (a slow mirror); 0 = off. */
  chunkDelayMs: number;
  close(): Promise<void>;
}

export function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** Deterministic bytes of `n` length, different per `seed`. */
export function testBytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

export async function startTestMirror(files: Record<string, Buffer>, opts: { token?: string; prefix?: string } = {}): Promise<TestMirror> {
  const manifest: TestMirrorManifest = { files: Object.entries(files).map(([path, b]) => ({ path, size: b.length, sha256: sha256(b) })) };
  const cuts = new Map<string, number>();
  const corrupted = new Set<string>();
  const prefix = opts.prefix ?? '/';
  const mirror: TestMirror = {
    url: '',
    manifest,
    requests: [],
    chunkDelayMs: 0,
    cutOnce: (f, n) => void cuts.set(f, n),
    corrupt: (f) => void corrupted.add(f),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    mirror.requests.push({
      path,
      ...(req.headers.range ? { range: req.headers.range } : {}),
      ...(req.headers.authorization ? { auth: req.headers.authorization } : {}),
    });
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      res.writeHead(401).end();
      return;
    }
    if (!path.startsWith(prefix)) {
      res.writeHead(404).end();
      return;
    }
    const name = path.slice(prefix.length);
    if (name === 'manifest.json' || name === 'llmgw-manifest.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(manifest));
      return;
    }
    let body = files[name];
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    if (corrupted.has(name)) {
      body = Buffer.from(body);
      body[0] ^= 0xff;
    }
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (m) start = Number(m[1]);
    if (start >= body.length && body.length > 0) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    const part = body.subarray(start);
    res.writeHead(m ? 206 : 200, {
      'content-length': String(part.length),
      ...(m ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    const cut = cuts.get(name);
    if (cut !== undefined) cuts.delete(name);
    void (async () => {
      const step = 4096;
      for (let off = 0; off < part.length; off += step) {
        if (cut !== undefined && off >= cut) {
          // FIN after what was written so far: the client gets those bytes, then a short body.
          res.socket?.end();
          return;
        }
        if (mirror.chunkDelayMs) await new Promise((r) => setTimeout(r, mirror.chunkDelayMs));
        if (!res.write(part.subarray(off, Math.min(part.length, off + step)))) await new Promise((r) => res.once('drain', r));
      }
      res.end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  mirror.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  return mirror;
}
