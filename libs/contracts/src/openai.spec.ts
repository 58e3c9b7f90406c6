import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ChatCompletionRequest, CompletionRequest, EmbeddingRequest, chatMaxTokens, describeIssues, wantsStreamUsage } from './openai';

const bodies = resolve(__dirname, '../../..', 'fixtures/openai/bodies');
const schemaFor = (file: string) =>
  file.startsWith('chat') || file.includes('.chat_')
    ? ChatCompletionRequest
    : file.startsWith('completion') || file.includes('.completion_')
      ? CompletionRequest
      : EmbeddingRequest;

describe('OpenAI request schemas', () => {
  const requests = readdirSync(bodies).filter((f) => f.endsWith('.request.json'));
  const valid = requests.filter((f) => !f.startsWith('error.'));

  it('cover every captured request', () => {
    expect(valid.length).toBeGreaterThanOrEqual(10);
  });

  it.each(valid)('accept the captured %s and pass unknown fields through', (file) => {
    const raw = JSON.parse(readFileSync(join(bodies, file), 'utf8'));
    const r = schemaFor(file).safeParse({ ...raw, vendor_extension: { top_k: 5 } });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ ...raw, vendor_extension: { top_k: 5 } });
  });

  it('rejects the captured empty-messages request that OpenAI rejected', () => {
    const raw = JSON.parse(readFileSync(join(bodies, 'error.400.chat_empty_messages.request.json'), 'utf8'));
    const r = ChatCompletionRequest.safeParse(raw);
    expect(r.success).toBe(false);
    expect(describeIssues(r.error!)).toMatchObject({ param: 'messages', message: expect.stringMatching(/at least one message/) });
  });

  it.each<[string, unknown, string]>([
    ['chat without messages', { model: 'm' }, 'messages'],
    ['chat with empty messages', { model: 'm', messages: [] }, 'messages'],
    ['chat without model', { messages: [{ role: 'user', content: 'x' }] }, 'model'],
    ['chat with a string max_tokens', { model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: '5' }, 'max_tokens'],
    [
      'chat with a negative max_completion_tokens',
      { model: 'm', messages: [{ role: 'user', content: 'x' }], max_completion_tokens: -1 },
      'max_completion_tokens',
    ],
    ['chat with a message without role', { model: 'm', messages: [{ content: 'x' }] }, 'messages.0.role'],
  ])('reject %s, naming the param', (_n, body, param) => {
    const r = ChatCompletionRequest.safeParse(body);
    expect(r.success).toBe(false);
    expect(describeIssues(r.error!).param).toBe(param);
  });

  it.each<[string, unknown, boolean]>([
    ['string prompt', 'hello', true],
    ['string list', ['a', 'b'], true],
    ['token ids', [1, 2, 3], true],
    ['token id batches', [[1, 2], [3]], true],
    ['an object', { text: 'x' }, false],
    ['missing', undefined, false],
  ])('completions prompt: %s', (_n, prompt, ok) => {
    expect(CompletionRequest.safeParse({ model: 'm', prompt }).success).toBe(ok);
  });

  it.each<[string, unknown, boolean]>([
    ['float', 'float', true],
    ['base64', 'base64', true],
    ['other', 'int8', false],
  ])('embeddings encoding_format %s', (_n, encoding_format, ok) => {
    expect(EmbeddingRequest.safeParse({ model: 'm', input: 'x', encoding_format }).success).toBe(ok);
  });

  it.each([
    [{ max_tokens: 5 }, 5],
    [{ max_completion_tokens: 7, max_tokens: 5 }, 7],
    [{ max_tokens: null }, undefined],
    [{}, undefined],
  ])('chatMaxTokens(%j) = %p', (req, want) => {
    expect(chatMaxTokens(req)).toBe(want);
  });

  it.each([
    [{ stream_options: { include_usage: true } }, true],
    [{ stream_options: { include_usage: false } }, false],
    [{ stream_options: null }, false],
    [{}, false],
  ])('wantsStreamUsage(%j) = %p', (req, want) => {
    expect(wantsStreamUsage(req)).toBe(want);
  });
});
