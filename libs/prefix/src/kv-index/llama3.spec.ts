import fc from 'fast-check';
import { contentText, isLlama3Direct, llama3ChatHeadTokens, llama3ChatTokens, llama3TextHeadTokens, llama3TextTokens, setLlama3Direct } from './llama3';

describe('Llama 3 token ids (chat template, BOS)', () => {
  it('renders chat through the template with the generation prompt', () => {
    const ids = llama3ChatTokens([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: [{ type: 'text', text: 'Hello there, how are you?' }] },
    ]);
    // <|begin_of_text|><|start_header_id|>system<|end_header_id|> … <|start_header_id|>assistant<|end_header_id|>\n\n
    expect(ids.slice(0, 4)).toEqual([128000, 128006, 9125, 128007]);
    expect(ids.slice(-4)).toEqual([128006, 78191, 128007, 271]);
  }, 60_000);

  it('equal leading messages give equal leading tokens', () => {
    const sys = { role: 'system', content: 'A long shared system prompt. '.repeat(20) };
    const a = llama3ChatTokens([sys, { role: 'user', content: 'first question' }]);
    const b = llama3ChatTokens([sys, { role: 'user', content: 'another question entirely' }]);
    let same = 0;
    while (a[same] === b[same]) same++;
    expect(same).toBeGreaterThan(100);
  }, 60_000);

  it('adds BOS to completion prompts like vLLM', () => {
    expect(llama3TextTokens('hello world')).toEqual([128000, 15339, 1917]);
  }, 60_000);

  it("property: the direct renderer (with its span cache) gives exactly the Jinja template's token ids", () => {
    const piece = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(' ', '\n', '\t', '  lead', 'trail  ', '<|eot_id|>', '<|begin_of_text|>', 'héllo wörld', '日本語', '🙂', "don't", '1234567'),
    );
    const content = fc.oneof(
      fc.array(piece, { maxLength: 6 }).map((ps) => ps.join('')),
      fc.array(piece, { maxLength: 3 }).map((ps) => ps.map((text) => ({ type: 'text', text }))),
    );
    const msg = fc.record({ role: fc.constantFrom('system', 'user', 'assistant', 'tool'), content });
    const convo = fc.array(msg, { maxLength: 6 });
    try {
      fc.assert(
        fc.property(convo, (messages) => {
          setLlama3Direct(false);
          const viaTemplate = llama3ChatTokens(messages);
          setLlama3Direct(true);
          expect(isLlama3Direct()).toBe(true);
          expect(llama3ChatTokens(messages)).toEqual(viaTemplate);
          expect(llama3ChatTokens(messages)).toEqual(viaTemplate); // from the cache
        }),
        { numRuns: 150 },
      );
    } finally {
      setLlama3Direct(true);
    }
  }, 60_000);

  it('property: the head of a long prompt is a prefix of its token ids, and all of them when it fits', () => {
    const words = fc
      .array(fc.constantFrom('alpha', 'beta', ' ', '\n', 'γάμμα', '12345', 'x'.repeat(30), '—', "don't", '🙂'), { minLength: 1, maxLength: 60 })
      .map((ws) => ws.join(' '));
    const convo = fc.array(fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: words }), { minLength: 1, maxLength: 6 });
    const isPrefix = (head: number[], all: number[]): boolean => head.length <= all.length && head.every((id, i) => id === all[i]);
    fc.assert(
      fc.property(convo, fc.integer({ min: 1, max: 800 }), (messages, maxChars) => {
        const all = llama3ChatTokens(messages);
        const head = llama3ChatHeadTokens(messages, maxChars);
        expect(isPrefix(head, all)).toBe(true);
        const chars = messages.reduce((a, m) => a + m.role.length + m.content.length, 0);
        if (chars <= maxChars) expect(head).toEqual(all);
        const text = messages.map((m) => m.content).join(' ');
        const textAll = llama3TextTokens(text);
        const textHead = llama3TextHeadTokens(text, maxChars);
        expect(isPrefix(textHead, textAll)).toBe(true);
        if (text.length <= maxChars) expect(textHead).toEqual(textAll);
      }),
      { numRuns: 200 },
    );
    // A 4 MB prompt is keyed on its head only.
    const huge = 'The same sentence over and over again. '.repeat(110_000);
    expect(llama3TextHeadTokens(huge, 65_536).length).toBeLessThan(20_000);
    expect(llama3ChatHeadTokens([{ role: 'user', content: huge }], 65_536)).toEqual([]);
    expect(
      llama3ChatHeadTokens(
        [
          { role: 'system', content: 'short' },
          { role: 'user', content: huge },
        ],
        65_536,
      ).length,
    ).toBeGreaterThan(5);
  }, 120_000);

  it('takes text parts only', () => {
    expect(contentText([{ type: 'text', text: 'a' }, { type: 'image_url' }, { type: 'text', text: 'b' }])).toBe('ab');
    expect(contentText(null)).toBe('');
  });
});
