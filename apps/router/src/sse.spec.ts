import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasUsageObject, SseUsageTap } from './sse';

const FIX = join(__dirname, '../../../fixtures/openai/bodies');
const fixture = (name: string) => {
  const p = join(FIX, name);
  try {
    return readFileSync(p);
  } catch {
    return undefined;
  }
};

function run(tap: SseUsageTap, buf: Buffer, chunkSize: number): string {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += chunkSize) out.push(tap.push(buf.subarray(i, i + chunkSize)));
  out.push(tap.end());
  return Buffer.concat(out).toString('utf8');
}

const synthetic = Buffer.from(
  'data: {"choices":[{"index":0,"delta":{"content":"hé"}}],"usage":null}\n\n' +
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}\n\n' +
    'data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9,"prompt_tokens_details":{"cached_tokens":3}}}\n\n' +
    'data: [DONE]\n\n',
);

describe('SseUsageTap', () => {
  it.each([1, 3, 17, 4096])('captures usage and passes everything through when the client asked (chunks of %i bytes)', (size) => {
    const tap = new SseUsageTap(false);
    expect(run(tap, synthetic, size)).toBe(synthetic.toString());
    expect(tap.usage).toEqual({ promptTokens: 7, completionTokens: 2, cachedTokens: 3 });
    expect(tap.events).toBe(4);
  });

  it.each([1, 5, 4096])('withholds the usage-only chunk from a client that did not ask (chunks of %i bytes)', (size) => {
    const tap = new SseUsageTap(true);
    const out = run(tap, synthetic, size);
    expect(out).not.toContain('prompt_tokens');
    expect(out).toContain('"content":"hé"');
    expect(out.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(tap.usage?.promptTokens).toBe(7);
  });

  it('strips usage riding on a content chunk instead of dropping the content', () => {
    const tap = new SseUsageTap(true);
    const out = run(
      tap,
      Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"x"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}\n\ndata: [DONE]\n\n'),
      4096,
    );
    expect(out).toBe('data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\ndata: [DONE]\n\n');
    expect(tap.usage?.completionTokens).toBe(1);
  });

  it('reads the real OpenAI include_usage capture', () => {
    const buf = fixture('chat_completions.stream.include_usage.sse');
    expect(buf).toBeDefined();
    const tap = new SseUsageTap(true);
    const out = run(tap, buf!, 64);
    expect(tap.usage).toEqual({ promptTokens: 12, completionTokens: 100, cachedTokens: 0 });
    expect(out).not.toContain('"prompt_tokens"');
    expect(out).toContain('[DONE]');
  });

  it('forwards a chunk of whole events as the same bytes, without copying them', () => {
    const tap = new SseUsageTap(true);
    const chunk = Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}\n\n');
    expect(tap.push(chunk)).toBe(chunk);
    // A partial event waits; the next chunk completes it and both go out together.
    expect(tap.push(Buffer.from('data: {"choices":[]')).length).toBe(0);
    expect(tap.push(Buffer.from(',"usage":null}\r\n\r\n')).toString()).toBe('data: {"choices":[],"usage":null}\r\n\r\n');
    expect(tap.events).toBe(2);
  });

  it('splits a multi-byte character across chunks without damaging it', () => {
    const text = 'data: {"choices":[{"index":0,"delta":{"content":"日本"}}]}\n\n';
    const bytes = Buffer.from(text);
    const cut = bytes.indexOf(Buffer.from('日')) + 1;
    expect(run(new SseUsageTap(false), bytes, cut)).toBe(text);
  });

  it('finds a usage object on bytes, not a null usage', () => {
    expect(hasUsageObject(Buffer.from('{"usage":null}'))).toBe(false);
    expect(hasUsageObject(Buffer.from('{"usage" : {"prompt_tokens":1}}'))).toBe(true);
    expect(hasUsageObject(Buffer.from('{"usage":null,"x":{"usage":\n{}}}'))).toBe(true);
    expect(hasUsageObject(Buffer.from('"usage"'))).toBe(false);
  });
});
