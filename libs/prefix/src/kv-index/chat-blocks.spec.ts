import fc from 'fast-check';
import { blockHashes } from './block-hash';
import { ChatBlockHasher } from './chat-blocks';
import { llama3ChatHeadTokens, type ChatMessageLike } from './llama3';

const opts = { blockSize: 16, hashSeed: '0' };

describe('ChatBlockHasher (incremental block hashes of chat requests)', () => {
  it('property: equals hashing the head tokens from scratch, over growing conversations, shared prefixes, heads and evictions', () => {
    const words = fc
      .array(fc.constantFrom('alpha', 'beta', ' ', '\n', 'γάμμα', '12345', 'x'.repeat(30), '—', "don't", '🙂', '<|eot_id|>'), { minLength: 0, maxLength: 40 })
      .map((ws) => ws.join(' '));
    const msg = fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: words });
    fc.assert(
      fc.property(
        fc.array(msg, { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ fork: fc.nat(6), more: fc.array(msg, { minLength: 1, maxLength: 3 }) }), { maxLength: 6 }),
        fc.constantFrom(8, 65_536, 400),
        fc.constantFrom(1, 3, 64),
        (start, turns, maxChars, maxStates) => {
          const hasher = new ChatBlockHasher(opts, maxStates);
          let convo: ChatMessageLike[] = start;
          const seen: ChatMessageLike[][] = [convo];
          const check = (messages: ChatMessageLike[]): void => {
            expect(hasher.hashes(messages, maxChars)).toEqual(blockHashes(llama3ChatHeadTokens(messages, maxChars), opts));
          };
          check(convo);
          for (const t of turns) {
            // Either the next turn of the latest conversation or a fork of an earlier one (same leading messages).
            const base = seen[t.fork % seen.length];
            convo = [...base, ...t.more];
            seen.push(convo);
            check(convo);
            check(convo); // again: a retry, from the kept state
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it("resumes a conversation's next turn from the state its previous turn left", () => {
    const hasher = new ChatBlockHasher(opts);
    const convo: ChatMessageLike[] = [
      { role: 'system', content: 'A long shared system prompt. '.repeat(20) },
      { role: 'user', content: 'first question' },
    ];
    hasher.hashes(convo, 65_536);
    expect(hasher.stats).toEqual({ resumed: 0, fresh: 1 });
    convo.push({ role: 'assistant', content: 'an answer' }, { role: 'user', content: 'and then?' });
    const next = hasher.hashes(convo, 65_536);
    expect(hasher.stats).toEqual({ resumed: 1, fresh: 1 });
    expect(next).toEqual(blockHashes(llama3ChatHeadTokens(convo, 65_536), opts));
  }, 60_000);
});
