import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { blockHashes, ChatBlockHasher, llama3SpanStats, llama3TextHeadTokens, preloadLlama3, type BlockHashOptions, type ChatMessageLike } from '@llmgw/prefix';

/**
 * One request to key for tier 2: a chat request's messages (text content only; the head that
 * `maxChars` keys, plus the first message past it when there is one) or a completion's prompt
 * (its first `maxChars` + 1 characters).
 */
export type KeyJob = { readonly chat: readonly ChatMessageLike[]; readonly maxChars: number } | { readonly text: string; readonly maxChars: number };

/** What a worker answers: the block hashes (or why not), the time keying took on the worker, and its cumulative cache counters. */
export interface KeyReply {
  readonly id: number;
  readonly hashes?: bigint[];
  readonly error?: string;
  readonly ms: number;
  readonly spans: { readonly hits: number; readonly misses: number };
  readonly chains: { readonly resumed: number; readonly fresh: number };
}

/** Keys one job: the same hashes the router computes on its event loop with `tokenize_workers: 0`. */
export function keyJob(chat: ChatBlockHasher, job: KeyJob): bigint[] {
  if ('chat' in job) return chat.hashes(job.chat, job.maxChars);
  return blockHashes(llama3TextHeadTokens(job.text, job.maxChars), chat.opts);
}

/**
 * A tokenizer worker thread's body (docs/prefix.md#block-hashes): loads the tokenizer, says `ready`, then
 * keys the jobs it is sent in order (`port`: tests run it on a MessageChannel in-process). A conversation's turns go to the same worker, so its
 * `ChatBlockHasher` and span cache resume each turn from the one before.
 */
export function runTokenizeWorker(port: MessagePort | null = parentPort, data: unknown = workerData): void {
  if (!port) throw new Error('runTokenizeWorker: not in a worker thread');
  const opts = (data as { opts: BlockHashOptions }).opts;
  preloadLlama3();
  const chat = new ChatBlockHasher(opts);
  port.postMessage({ ready: true });
  port.on('message', (m: { id: number; job: KeyJob }) => {
    const t0 = performance.now();
    let hashes: bigint[] | undefined;
    let error: string | undefined;
    try {
      hashes = keyJob(chat, m.job);
    } catch (e) {
      error = (e as Error).message;
    }
    const reply: KeyReply = { id: m.id, hashes, error, ms: performance.now() - t0, spans: { ...llama3SpanStats }, chains: { ...chat.stats } };
    port.postMessage(reply);
  });
}
