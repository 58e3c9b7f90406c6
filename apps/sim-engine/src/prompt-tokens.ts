import { llama3ChatTokens, llama3TextTokens, preloadLlama3 } from '@llmgw/prefix';
import type { ChatMessage } from '@llmgw/contracts';
import { renderChat, tokenize } from './tokens';

/** How the engine turns a prompt into token ids (`--tokenizer`). */
export interface PromptTokenizer {
  chat(messages: ChatMessage[]): number[];
  text(prompt: string): number[];
}

/** `simple`: 4 characters per token (fast); `llama3`: the real tokenizer and chat template, loaded now. */
export function promptTokenizer(kind: 'simple' | 'llama3'): PromptTokenizer {
  if (kind === 'llama3') {
    preloadLlama3();
    return { chat: (m) => llama3ChatTokens(m), text: (p) => llama3TextTokens(p) };
  }
  return { chat: (m) => tokenize(renderChat(m)), text: (p) => tokenize(p) };
}
