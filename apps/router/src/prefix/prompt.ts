import { contentText, type ChatMessageLike } from '@llmgw/prefix';

/**
 * A completion's prompt given as token ids (`[1, 2, …]` or one such array in
 * a list, as RL rollout and evaluation clients send them); undefined for text
 * prompts, several prompts, or anything that is not a non-empty list of
 * non-negative integers.
 */
export function promptTokenIds(kind: 'chat' | 'completions' | 'embeddings', body: Record<string, unknown>): number[] | undefined {
  if (kind !== 'completions') return undefined;
  let p = body.prompt;
  if (Array.isArray(p) && p.length === 1 && Array.isArray(p[0])) p = p[0];
  if (!Array.isArray(p) || p.length === 0) return undefined;
  for (const x of p) if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) return undefined;
  return p as number[];
}

/**
 * The prompt text tier 1 keys on: chat messages rendered in order as
 * `role \x1f text \x1e` (separators no client text is expected to contain),
 * a completion's prompt as it is, a token-id prompt as its ids (after a
 * `\x1d` no text prompt starts with, so ids never match text). A later turn of
 * a conversation renders to an extension of the earlier turn's text, which
 * is what a prefix tree needs. Several text prompts in one request are
 * joined with `\x1e`. Undefined when there is no prompt to key on
 * (embeddings, several token-id prompts).
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
    if (Array.isArray(p) && p.length > 0 && p.every((x) => typeof x === 'string')) return (p as string[]).join('\x1e');
    const ids = promptTokenIds(kind, body);
    // Each id and its separator: about 6 characters, so a 64-character chunk is about 10 tokens.
    if (ids) return `\x1d${ids.join(',')},`;
  }
  return undefined;
}
