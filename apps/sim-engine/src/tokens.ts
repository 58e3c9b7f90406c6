import type { ChatMessage } from '@llmgw/contracts';
import { fnv1a, mulberry32 } from './rng';

/** Characters per simulated token: the usual rule of thumb for English text. */
export const CHARS_PER_TOKEN = 4;

/** Renders chat messages the way a chat template would, so equal prefixes give equal tokens. */
export function renderChat(messages: ChatMessage[]): string {
  let out = '';
  for (const m of messages) {
    let content = '';
    if (typeof m.content === 'string') content = m.content;
    else if (Array.isArray(m.content)) for (const p of m.content) if (typeof p.text === 'string') content += p.text;
    out += `<|${m.role}|>\n${content}\n`;
  }
  return out + '<|assistant|>\n';
}

/**
 * Deterministic tokenisation: every CHARS_PER_TOKEN characters are one token,
 * its id a hash of those characters. Prompts sharing a prefix share its tokens,
 * which is all the prefix cache needs.
 */
export function tokenize(text: string): number[] {
  const n = Math.ceil(text.length / CHARS_PER_TOKEN);
  const ids = new Array<number>(n);
  for (let i = 0; i < n; i++) ids[i] = fnv1a(text.slice(i * CHARS_PER_TOKEN, (i + 1) * CHARS_PER_TOKEN)) & 0x7fffffff;
  return ids;
}

const WORDS = [
  'the',
  'model',
  'token',
  'cache',
  'block',
  'router',
  'engine',
  'prefix',
  'batch',
  'queue',
  'latency',
  'stream',
  'request',
  'replica',
  'node',
  'fabric',
  'gpu',
  'memory',
  'kernel',
  'tensor',
  'layer',
  'attention',
  'decode',
  'prefill',
  'schedule',
  'admit',
  'score',
  'pick',
  'filter',
  'budget',
  'tenant',
  'usage',
  'of',
  'and',
  'to',
  'in',
  'is',
  'a',
  'for',
  'with',
  'on',
  'that',
  'runs',
  'serves',
  'waits',
  'grows',
  'fast',
  'slow',
  'warm',
  'cold',
];

/** Deterministic pseudo-words for one request: the same seed gives the same text. */
export class WordStream {
  private readonly rand: () => number;
  private count = 0;
  constructor(seed: number) {
    this.rand = mulberry32(seed);
  }
  /** The next token's text (a word, with a leading space after the first). */
  next(): string {
    const w = WORDS[Math.floor(this.rand() * WORDS.length)];
    return this.count++ === 0 ? w : ' ' + w;
  }
}
