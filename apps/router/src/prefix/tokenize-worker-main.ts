import { isMainThread } from 'node:worker_threads';
import { runTokenizeWorker } from './tokenize-worker';

/**
 * The tokenizer worker thread's own entry: built beside every bundle that holds the tokenize pool
 * (`dist/apps/<role>/tokenize-worker.js`, tools/scripts/build-app.cjs), so a worker loads the tokenizer
 * and the block hashing alone, not the whole router (docs/prefix.md#block-hashes).
 */
if (!isMainThread) runTokenizeWorker();
