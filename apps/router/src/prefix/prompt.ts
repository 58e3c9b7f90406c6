import { contentText, type ChatMessageLike } from '@llmgw/prefix';

/**
 * The prompt text tier 1 keys on: chat messages rendered in order as
 * `role \x1f text \x1e` (separators no client text is expected to contain),
 * a completion's prompt as it is. A later turn of a conversation renders to
 * an extension of the earlier turn's text, which is what a prefix tree needs.
 * Undefined when there is no prompt to key on (embeddings, token-id prompts).
 */
export function promptText(kind: 'chat' | 'completions' | 'embeddings', body: Record<string, unknown>): string | undefined {
  if (kind === 'chat') {
    const msgs = body.messages;
    if (!Array.isArray(msgs)) return undefined;
    let out = '';
    for (const m of msgs as ChatMessageLike[]) out += `${m.role}\x1f${contentText(m.content)}\x1e`;
    return out;
  }
  if (kind === 'completions') {
    const p = body.prompt;
    if (typeof p === 'string') return p;
    if (Array.isArray(p) && p.every((x) => typeof x === 'string')) return (p as string[]).join('\x1e');
  }
  return undefined;
}
