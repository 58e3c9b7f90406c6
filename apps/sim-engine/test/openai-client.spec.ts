import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engines, REPO_ROOT, postJson, sseEvents } from './helpers';

const fixtures = join(REPO_ROOT, 'fixtures/openai/bodies');
const engines = new Engines();
afterEach(() => engines.closeAll());

async function client(opts = {}) {
  const h = await engines.start({ models: ['llama', 'llama-alias'], decodeTps: 0, prefillTps: 0, seed: 7, ...opts });
  return { h, openai: new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'unused', maxRetries: 0 }) };
}

describe('the official openai client talks to sim-engine unchanged', () => {
  it.each([
    ['max_tokens', { max_tokens: 5 }, 5, 'length'],
    ['max_completion_tokens', { max_completion_tokens: 3 }, 3, 'length'],
    ['no limit (--max-tokens-default)', {}, 16, 'stop'],
  ])('chat, non-streaming, %s', async (_name, extra, tokens, finish) => {
    const { openai } = await client();
    const r = await openai.chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'hello there' }], ...extra });
    expect(r.object).toBe('chat.completion');
    expect(r.model).toBe('llama');
    expect(r.choices[0].finish_reason).toBe(finish);
    expect(r.choices[0].message.role).toBe('assistant');
    expect(r.choices[0].message.content!.split(' ')).toHaveLength(tokens);
    expect(r.usage).toMatchObject({ completion_tokens: tokens, prompt_tokens: expect.any(Number), prompt_tokens_details: { cached_tokens: 0 } });
    expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + tokens);
  });

  it('chat, streaming with include_usage: content deltas add up and the last chunk carries usage', async () => {
    const { openai } = await client();
    const stream = await openai.chat.completions.create({
      model: 'llama-alias',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 6,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finishes: Array<string | null> = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      if (chunk.choices.length === 0) usage = chunk.usage;
      for (const c of chunk.choices) {
        text += c.delta.content ?? '';
        finishes.push(c.finish_reason);
      }
    }
    expect(text.split(' ')).toHaveLength(6);
    expect(finishes.at(-1)).toBe('length');
    expect(usage).toMatchObject({ completion_tokens: 6 });
  });

  it('completions, streaming and not, give the same text for the same seed and prompt', async () => {
    const { openai } = await client();
    const plain = await openai.completions.create({ model: 'llama', prompt: 'def fib(n):', max_tokens: 8 });
    const stream = await openai.completions.create({ model: 'llama', prompt: 'def fib(n):', max_tokens: 8, stream: true });
    let text = '';
    let finish: string | null = null;
    for await (const c of stream) {
      text += c.choices[0]?.text ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(plain.object).toBe('text_completion');
    expect(plain.choices[0].finish_reason).toBe('length');
    expect(text).toBe(plain.choices[0].text);
    expect(finish).toBe('length');
  });

  it.each([
    ['float', undefined, 256],
    ['float with dimensions', 64, 64],
  ])('embeddings (%s)', async (_n, dimensions, len) => {
    const { openai } = await client();
    const r = await openai.embeddings.create({ model: 'llama', input: ['one', 'two'], ...(dimensions ? { dimensions } : {}), encoding_format: 'float' });
    expect(r.data).toHaveLength(2);
    expect(r.data[0].embedding).toHaveLength(len);
    const norm = Math.sqrt(r.data[0].embedding.reduce((a, x) => a + x * x, 0));
    expect(norm).toBeCloseTo(1, 3);
    expect(r.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it.each<[string, unknown, number]>([
    ['a string', 'x', 1],
    ['strings', ['x', 'y', 'z'], 3],
    ['one token-id list', [1, 2, 3], 1],
    ['token-id lists', [[1, 2], [3]], 2],
  ])('embeddings input as %s gives %d vectors', async (_n, input, n) => {
    const { h } = await client();
    const r = await (await postJson(`${h.url}/v1/embeddings`, { model: 'llama', input })).json();
    expect(r.data.map((d: { index: number }) => d.index)).toEqual(Array.from({ length: n }, (_, i) => i));
  });

  it('embeddings in base64 decode to the same floats', async () => {
    const { h } = await client();
    const f = await (await postJson(`${h.url}/v1/embeddings`, { model: 'llama', input: 'x', encoding_format: 'float' })).json();
    const b = await (await postJson(`${h.url}/v1/embeddings`, { model: 'llama', input: 'x', encoding_format: 'base64' })).json();
    const buf = Buffer.from(b.data[0].embedding, 'base64');
    const floats = Array.from(new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4));
    expect(floats).toEqual(f.data[0].embedding);
  });

  it('lists every served model', async () => {
    const { openai } = await client();
    const ids: string[] = [];
    for await (const m of openai.models.list()) ids.push(m.id);
    expect(ids).toEqual(['llama', 'llama-alias']);
  });
});

describe('wire shape matches the OpenAI captures', () => {
  it.each([
    ['chat', '/v1/chat/completions', 'chat_completions.stream.include_usage.sse', { messages: [{ role: 'user', content: 'hi' }] }],
    ['completions', '/v1/completions', 'completions.stream.include_usage.sse', { prompt: 'hi' }],
  ])('%s stream with include_usage: same keys per chunk, final usage chunk with empty choices, then [DONE]', async (_n, path, fixture, body) => {
    const { h } = await client();
    const res = await postJson(`${h.url}${path}`, { model: 'llama', max_tokens: 3, stream: true, stream_options: { include_usage: true }, ...body });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const ours = sseEvents(await res.text());
    const theirs = sseEvents(readFileSync(join(fixtures, fixture), 'utf8'));
    expect(ours.at(-1)).toBe('[DONE]');
    expect(theirs.at(-1)).toBe('[DONE]');
    const usageOurs = ours.at(-2) as Record<string, any>;
    const usageTheirs = theirs.at(-2) as Record<string, any>;
    expect(usageOurs.choices).toEqual([]);
    expect(Object.keys(usageOurs.usage).sort()).toEqual(expect.arrayContaining(['completion_tokens', 'prompt_tokens', 'total_tokens']));
    const keyset = (e: Record<string, any>) =>
      Object.keys(e)
        .filter((k) => !['service_tier', 'system_fingerprint', 'obfuscation'].includes(k))
        .sort();
    expect(keyset(usageOurs)).toEqual(keyset(usageTheirs));
    const firstOurs = ours[0] as Record<string, any>;
    const firstTheirs = theirs[0] as Record<string, any>;
    expect(keyset(firstOurs)).toEqual(keyset(firstTheirs));
    expect(firstOurs.object).toBe(firstTheirs.object);
    for (const e of ours.slice(0, -2)) expect((e as Record<string, any>).usage).toBeNull();
  });

  it.each([
    ['chat', '/v1/chat/completions', 'chat_completion.json', { messages: [{ role: 'user', content: 'hi' }] }],
    ['completions', '/v1/completions', 'completion.json', { prompt: 'hi' }],
  ])('%s, non-streaming: the captured response keys, choice keys and usage keys', async (_n, path, fixture, body) => {
    const { h } = await client();
    const ours = await (await postJson(`${h.url}${path}`, { model: 'llama', max_tokens: 3, ...body })).json();
    const theirs = JSON.parse(readFileSync(join(fixtures, fixture), 'utf8'));
    const keys = (o: Record<string, unknown>) =>
      Object.keys(o)
        .filter((k) => !['service_tier', 'annotations', 'completion_tokens_details'].includes(k))
        .sort();
    expect(keys(ours)).toEqual(expect.arrayContaining(keys(theirs)));
    expect(keys(ours.choices[0])).toEqual(expect.arrayContaining(keys(theirs.choices[0])));
    if (theirs.choices[0].message) expect(keys(ours.choices[0].message)).toEqual(expect.arrayContaining(keys(theirs.choices[0].message)));
    expect(keys(ours.usage)).toEqual(expect.arrayContaining(keys(theirs.usage)));
    expect(ours.object).toBe(theirs.object);
  });

  it('a stream without include_usage has no usage chunk and no usage field', async () => {
    const { h } = await client();
    const ev = sseEvents(
      await (
        await postJson(`${h.url}/v1/chat/completions`, { model: 'llama', max_tokens: 2, stream: true, messages: [{ role: 'user', content: 'x' }] })
      ).text(),
    );
    const data = ev.filter((e): e is Record<string, any> => e !== '[DONE]');
    expect(data.every((e) => e.choices.length === 1 && !('usage' in e))).toBe(true);
    expect(data[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(data.at(-1)!.choices[0]).toMatchObject({ delta: {}, finish_reason: 'length' });
  });

  it('stop strings end generation early with finish_reason "stop"', async () => {
    const { h } = await client();
    const full = await (await postJson(`${h.url}/v1/completions`, { model: 'llama', prompt: 'p', max_tokens: 12 })).json();
    const words: string[] = full.choices[0].text.split(' ');
    const stopWord = ' ' + words[4];
    const cut = full.choices[0].text.indexOf(stopWord);
    const r = await (await postJson(`${h.url}/v1/completions`, { model: 'llama', prompt: 'p', max_tokens: 12, stop: [stopWord] })).json();
    expect(r.choices[0].finish_reason).toBe('stop');
    expect(r.choices[0].text).toBe(full.choices[0].text.slice(0, cut));
  });
});
