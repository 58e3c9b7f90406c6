import { execFile, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { APICallError, embed, generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { spawnRole, type SpawnedRole, waitUntil } from '@llmgw/testing';
import type { LedgerRecord } from '@llmgw/stores';
import { start, type RunningRouter } from '../src/main';
import { silentLog } from './helpers';
import { keyWith, recordUsage } from './tenancy-with-keys';

// Client conformance: real clients, unchanged, against the router (tenancy on) in front of real
// sim-engines. Each client: chat non-streaming and streaming, the Responses API, embeddings, an
// unknown model, a bad key, an over-limit body and a 429 — each failure as the client's own error class.
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());
jest.setTimeout(60_000);

const ledger = recordUsage();

const LIMIT = 32 * 1024;
const GOOD = keyWith({}, 'conf-good');
const BIG = 'x'.repeat(2 * LIMIT);
/** A key allowed one request a minute: the second one is a 429. */
const once = (tag: string) => keyWith({ rpm: [{ scope: `key:conf-${tag}`, limit: 1 }] }, `conf-${tag}`);

/** openai as LangChain loads it (its own copy): LangChain's errors are instances of these classes. */
const langchainOpenAI: typeof OpenAI = createRequire(require.resolve('@langchain/openai'))('openai');

let engines: SpawnedRole[] = [];
let router: RunningRouter;
let base: string;

beforeAll(async () => {
  engines = await Promise.all(
    ['e1', 'e2'].map(() => spawnRole('sim-engine', ['--port', '0', '--model', 'llama', '--decode-tps', '2000', '--max-tokens-default', '8'])),
  );
  router = await start({
    log: silentLog(),
    config: {
      listen: '127.0.0.1:0',
      admin_listen: '127.0.0.1:0',
      scrape_interval: 500,
      body_limit_bytes: LIMIT,
      tenancy: { enabled: true },
      models: [{ name: 'llama' }],
      endpoints: engines.map((e, i) => ({ name: `e${i + 1}`, url: e.url, model: 'llama' })),
    },
  });
  base = `${router.url}/v1`;
}, 90_000);

afterAll(async () => {
  await router?.close();
  await Promise.all(engines.map((e) => e.stop()));
});

/** The usage the ledger received for requests with this x-request-id prefix. */
async function usageFor(reqPrefix: string): Promise<LedgerRecord> {
  await waitUntil(() => ledger.records.some((r) => r.requestId.startsWith(reqPrefix)), 'ledger.records.some((r) => r.requestId.startsWith(reqPrefix))', {
    timeoutMs: 10_000,
    everyMs: 25,
  });
  return ledger.records.find((r) => r.requestId.startsWith(reqPrefix))!;
}

describe('openai-node', () => {
  const client = (apiKey = GOOD) => new OpenAI({ baseURL: base, apiKey, maxRetries: 0 });

  it('chat, non-streaming and streaming', async () => {
    const r = await client().chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 });
    expect(r.choices[0].message.content?.split(' ')).toHaveLength(4);
    const stream = await client().chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'hello' }], max_tokens: 5, stream: true });
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text.split(' ')).toHaveLength(5);
  });

  it('the Responses API, non-streaming and streaming, with usage in the ledger', async () => {
    const r = await client().responses.create({ model: 'llama', input: 'hello', max_output_tokens: 3 }, { headers: { 'x-request-id': 'conf-node-resp-1' } });
    expect(r.output_text.split(' ')).toHaveLength(3);
    expect((await usageFor('conf-node-resp-1')).completionTokens).toBe(3);
    const stream = await client().responses.create(
      { model: 'llama', input: 'hello', max_output_tokens: 4, stream: true },
      { headers: { 'x-request-id': 'conf-node-resp-2' } },
    );
    let text = '';
    for await (const ev of stream) if (ev.type === 'response.output_text.delta') text += ev.delta;
    expect(text.split(' ')).toHaveLength(4);
    const u = await usageFor('conf-node-resp-2');
    expect(u).toMatchObject({ completionTokens: 4, servedModel: 'llama', status: 200 });
    expect(u.promptTokens).toBeGreaterThan(0);
  });

  it('embeddings', async () => {
    const r = await client().embeddings.create({ model: 'llama', input: ['a', 'b'] });
    expect(r.data).toHaveLength(2);
    expect(r.data[0].embedding.length).toBeGreaterThan(0);
  });

  it.each([
    ['an unknown model', () => client().chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }), OpenAI.NotFoundError, 404],
    [
      'a bad key',
      () => client('sk-llmgw-wrong').chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.AuthenticationError,
      401,
    ],
    ['an over-limit body', () => client().chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: BIG }] }), OpenAI.APIError, 413],
  ])('%s → its error class', async (_what, call, cls, status) => {
    const e = await call().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(cls);
    expect(e).not.toBeInstanceOf(OpenAI.APIConnectionError);
    expect((e as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
  });

  it('a 429 → RateLimitError with the rate-limit headers', async () => {
    const c = client(once('node'));
    await c.chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'x' }], max_tokens: 1 });
    const e = await c.chat.completions.create({ model: 'llama', messages: [{ role: 'user', content: 'x' }], max_tokens: 1 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.RateLimitError);
    expect((e as InstanceType<typeof OpenAI.RateLimitError>).headers.get('x-ratelimit-remaining-requests')).toBe('0');
  });
});

describe('LangChain JS (@langchain/openai)', () => {
  const chat = (opts: Record<string, unknown> = {}, apiKey = GOOD) =>
    new ChatOpenAI({ model: 'llama', apiKey, maxRetries: 0, configuration: { baseURL: base }, ...opts });

  it('chat, non-streaming and streaming', async () => {
    const r = await chat({ maxTokens: 4 }).invoke('hello');
    expect(String(r.content).split(' ')).toHaveLength(4);
    let text = '';
    for await (const c of await chat({ maxTokens: 5 }).stream('hello')) text += String(c.content);
    expect(text.split(' ')).toHaveLength(5);
  });

  it('the Responses API (useResponsesApi)', async () => {
    const r = await chat({ useResponsesApi: true, maxTokens: 3 }).invoke('hello');
    expect(r.text.split(' ')).toHaveLength(3);
    expect(r.usage_metadata?.output_tokens).toBe(3);
    let text = '';
    for await (const c of await chat({ useResponsesApi: true, maxTokens: 4 }).stream('hello')) text += c.text;
    expect(text.split(' ')).toHaveLength(4);
  });

  it('embeddings', async () => {
    const v = await new OpenAIEmbeddings({ model: 'llama', apiKey: GOOD, maxRetries: 0, configuration: { baseURL: base } }).embedQuery('hello');
    expect(v.length).toBeGreaterThan(0);
  });

  it.each([
    ['an unknown model', () => chat({ model: 'nope' }).invoke('x'), 'NotFoundError', 'MODEL_NOT_FOUND', 404],
    ['a bad key', () => chat({}, 'sk-llmgw-wrong').invoke('x'), 'AuthenticationError', 'MODEL_AUTHENTICATION', 401],
    ['an over-limit body', () => chat().invoke(BIG), 'APIError', undefined, 413],
  ])('%s → its error class and lc_error_code', async (_what, call, cls, lcCode, status) => {
    const e = (await call().catch((x: unknown) => x)) as Error & { status?: number; lc_error_code?: string };
    expect(e).toBeInstanceOf(langchainOpenAI[cls as 'APIError']);
    expect(e.constructor.name).toBe(cls);
    expect(e.status).toBe(status);
    expect(e.lc_error_code).toBe(lcCode);
  });

  it('a 429 → RateLimitError (MODEL_RATE_LIMIT)', async () => {
    const c = chat({ maxTokens: 1 }, once('lc'));
    await c.invoke('x');
    const e = (await c.invoke('x').catch((x: unknown) => x)) as Error & { lc_error_code?: string };
    expect(e).toBeInstanceOf(langchainOpenAI.RateLimitError);
    expect(e.lc_error_code).toBe('MODEL_RATE_LIMIT');
  });
});

describe('Vercel AI SDK (ai + @ai-sdk/openai)', () => {
  const provider = (apiKey = GOOD) => createOpenAI({ baseURL: base, apiKey });

  it('chat completions, non-streaming and streaming', async () => {
    const r = await generateText({ model: provider().chat('llama'), prompt: 'hello', maxOutputTokens: 4, maxRetries: 0 });
    expect(r.text.split(' ')).toHaveLength(4);
    const s = streamText({ model: provider().chat('llama'), prompt: 'hello', maxOutputTokens: 5, maxRetries: 0 });
    let text = '';
    for await (const t of s.textStream) text += t;
    expect(text.split(' ')).toHaveLength(5);
  });

  it('the Responses API (the default provider model), non-streaming and streaming', async () => {
    const r = await generateText({ model: provider()('llama'), prompt: 'hello', maxOutputTokens: 3, maxRetries: 0 });
    expect(r.text.split(' ')).toHaveLength(3);
    expect(r.usage.outputTokens).toBe(3);
    const s = streamText({ model: provider()('llama'), prompt: 'hello', maxOutputTokens: 4, maxRetries: 0 });
    let text = '';
    for await (const t of s.textStream) text += t;
    expect(text.split(' ')).toHaveLength(4);
    expect((await s.usage).outputTokens).toBe(4);
  });

  it('embeddings', async () => {
    const r = await embed({ model: provider().embedding('llama'), value: 'hello', maxRetries: 0 });
    expect(r.embedding.length).toBeGreaterThan(0);
  });

  it.each([
    ['an unknown model', () => generateText({ model: provider().chat('nope'), prompt: 'x', maxRetries: 0 }), 404],
    ['a bad key', () => generateText({ model: provider('sk-llmgw-wrong').chat('llama'), prompt: 'x', maxRetries: 0 }), 401],
    ['an over-limit body', () => generateText({ model: provider().chat('llama'), prompt: BIG, maxRetries: 0 }), 413],
  ])('%s → APICallError with its status', async (_what, call, status) => {
    const e = await call().catch((x: unknown) => x);
    expect(APICallError.isInstance(e)).toBe(true);
    expect((e as APICallError).statusCode).toBe(status);
  });

  it('a 429 → APICallError 429, retryable', async () => {
    const p = provider(once('ai'));
    await generateText({ model: p.chat('llama'), prompt: 'x', maxOutputTokens: 1, maxRetries: 0 });
    const e = await generateText({ model: p.chat('llama'), prompt: 'x', maxOutputTokens: 1, maxRetries: 0 }).catch((x: unknown) => x);
    expect(APICallError.isInstance(e)).toBe(true);
    expect((e as APICallError).statusCode).toBe(429);
    expect((e as APICallError).isRetryable).toBe(true);
  });
});

// The Python openai package: the interpreter in LLMGW_TEST_PYTHON (.ci/run installs the package into a
// venv and names its python3 there), else python3 on the path with the package installed.
const PYTHON = process.env.LLMGW_TEST_PYTHON || 'python3';
const python = spawnSync(PYTHON, ['-c', 'import openai'], { stdio: 'ignore' }).status === 0;
if (!python) {
  console.warn(
    `conformance: skipping the Python openai client (${PYTHON} cannot import openai; Debian bookworm has no python3-openai: pip install openai, or set LLMGW_TEST_PYTHON)`,
  );
}
(python ? describe : describe.skip)('the Python openai package', () => {
  it('chat, streaming, Responses, embeddings, and its error classes', async () => {
    const script = `
import sys, openai
base, good, once, big = sys.argv[1], sys.argv[2], sys.argv[3], 'x' * ${2 * LIMIT}
c = openai.OpenAI(base_url=base, api_key=good, max_retries=0)
assert len(c.chat.completions.create(model='llama', messages=[{'role': 'user', 'content': 'hi'}], max_tokens=4).choices[0].message.content.split(' ')) == 4
assert len(''.join((e.choices[0].delta.content or '') for e in c.chat.completions.create(model='llama', messages=[{'role': 'user', 'content': 'hi'}], max_tokens=5, stream=True) if e.choices).split(' ')) == 5
assert len(c.responses.create(model='llama', input='hi', max_output_tokens=3).output_text.split(' ')) == 3
assert len(c.embeddings.create(model='llama', input='hi').data) == 1
def expect(cls, status, f):
    try:
        f()
    except cls as e:
        assert e.status_code == status, (cls, e.status_code)
        return
    raise AssertionError('no %s' % cls.__name__)
expect(openai.NotFoundError, 404, lambda: c.chat.completions.create(model='nope', messages=[{'role': 'user', 'content': 'x'}]))
expect(openai.AuthenticationError, 401, lambda: openai.OpenAI(base_url=base, api_key='sk-llmgw-wrong', max_retries=0).models.list())
expect(openai.APIStatusError, 413, lambda: c.chat.completions.create(model='llama', messages=[{'role': 'user', 'content': big}]))
o = openai.OpenAI(base_url=base, api_key=once, max_retries=0)
o.chat.completions.create(model='llama', messages=[{'role': 'user', 'content': 'x'}], max_tokens=1)
expect(openai.RateLimitError, 429, lambda: o.chat.completions.create(model='llama', messages=[{'role': 'user', 'content': 'x'}], max_tokens=1))
print('ok')
`;
    // Asynchronously: the router answering it runs in this process.
    const { stdout } = await promisify(execFile)(PYTHON, ['-c', script, base, GOOD, once('py')], { encoding: 'utf8', timeout: 60_000 });
    expect(stdout.trim()).toBe('ok');
  });
});
