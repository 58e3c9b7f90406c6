import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { blockHashes, llama3ChatHeadTokens, llama3TextTokens, type ChatMessageLike } from '@llmgw/prefix';
import { tokenizeWorkerFile } from '../src/prefix/tokenize-pool';
import type { KeyReply } from '../src/prefix/tokenize-worker';

// The router's bundle carries its tokenizer worker's own entry beside it (tools/scripts/build-app.cjs):
// a worker started from it loads the tokenizer and the block hashing, not the whole router, and keys
// exactly as the router's event loop would (docs/prefix.md#block-hashes).
const ROOT = join(__dirname, '../../..');
const bundles = require(join(ROOT, 'tools/scripts/build-app.cjs')) as {
  build(name: string): string;
  freshness(name: string): { fresh: boolean };
  bundlePath(name: string): string;
};
const opts = { blockSize: 16, hashSeed: '0' };

describe("the tokenizer worker's own entry", () => {
  let dir: string;
  beforeAll(() => {
    if (!bundles.freshness('router').fresh) bundles.build('router');
    dir = join(bundles.bundlePath('router'), '..');
  }, 120_000);

  it('is built beside the router bundle, and the bundle starts its workers from it (from the sources, from the entry file)', () => {
    expect(existsSync(join(dir, 'tokenize-worker.js'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8')) as { files: Record<string, unknown> };
    // An edit to the entry makes the bundle stale like any other input.
    expect(Object.keys(manifest.files)).toContain('apps/router/src/prefix/tokenize-worker-main.ts');
    // The worker entry holds no router code: it is a fraction of the bundle.
    expect(readFileSync(join(dir, 'tokenize-worker.js')).length).toBeLessThan(readFileSync(join(dir, 'main.js')).length / 10);
    expect(tokenizeWorkerFile(dir, join(dir, 'main.js'))).toBe(join(dir, 'tokenize-worker.js'));
    expect(tokenizeWorkerFile('/nowhere', '/nowhere/main.js')).toBe('/nowhere/main.js');
    expect(tokenizeWorkerFile('/src/prefix', '/src/prefix/tokenize-pool.ts')).toBe('/src/prefix/tokenize-worker-main.ts');
  });

  it('a worker started from it says ready and keys chat and text as the event loop would', async () => {
    const w = new Worker(join(dir, 'tokenize-worker.js'), { workerData: { opts } });
    try {
      const replies = new Map<number, KeyReply>();
      let ready = false;
      const heard = new Promise<void>((resolve, reject) => {
        w.on('error', reject);
        w.on('message', (m: KeyReply | { ready: true }) => {
          if ('ready' in m) ready = true;
          else replies.set(m.id, m);
          if (replies.size === 2) resolve();
        });
      });
      const id = randomUUID();
      const chat: ChatMessageLike[] = [
        { role: 'system', content: `A system prompt ${id}. `.repeat(12) },
        { role: 'user', content: `a question ${id}` },
      ];
      const text = `A completion prompt ${id}. `.repeat(10);
      w.postMessage({ id: 1, job: { chat, maxChars: 65_536 } });
      w.postMessage({ id: 2, job: { text, maxChars: 65_536 } });
      await heard;
      expect(ready).toBe(true);
      expect(replies.get(1)).toMatchObject({ hashes: blockHashes(llama3ChatHeadTokens(chat, 65_536), opts) });
      expect(replies.get(2)).toMatchObject({ hashes: blockHashes(llama3TextTokens(text), opts) });
    } finally {
      await w.terminate();
    }
  }, 120_000);
});
