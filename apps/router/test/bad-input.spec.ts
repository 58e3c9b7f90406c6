import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger } from '@llmgw/stores';
import { start, type RunningRouter } from '../src/main';
import { chatJson, fakeUpstream, silentLog, type FakeUpstream } from './helpers';
import { httpBytes, rawRequest, type RawResponse } from './raw-http';
import { keyWith, testTenancy } from './tenancy-with-keys';

// Malformed input of every kind, sent as raw bytes: each case must get its status, OpenAI's
// error JSON (message, type, code, param) with an x-request-id, and leave the server healthy.
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());
testTenancy.stores = { counters: new MemoryLimitCounters(), ledger: new MemoryUsageLedger(), keyCacheBus: new MemoryKeyCacheBus() };
const GOOD = keyWith({}, 'good');
const NARROW = keyWith({ allowedModels: ['other'] }, 'narrow');

const LIMIT = 64 * 1024;
const auth = { authorization: `Bearer ${GOOD}` };
const json = { ...auth, 'content-type': 'application/json' };
const chat = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });
const withMessage = (m: Record<string, unknown>) => JSON.stringify({ model: 'm', messages: [m] });
const post = (path: string, body: string | Buffer, headers: Record<string, string> = json) => httpBytes('POST', path, headers, body);

type Case = [name: string, request: string | Buffer | Array<string | Buffer>, status: number, code: string, param?: string | null];

const cases: Case[] = [
  // --- the HTTP layer ------------------------------------------------------------------------
  ['a garbage request line', 'GARBAGE\r\n\r\n', 400, 'malformed_request'],
  ['an invalid method token', 'G@T /v1/models HTTP/1.1\r\nhost: x\r\n\r\n', 400, 'malformed_request'],
  ['a bad HTTP version', 'GET /v1/models HTTP/7.5\r\nhost: x\r\n\r\n', 400, 'malformed_request'],
  ['a space in the URL', 'GET /v1/mod els HTTP/1.1\r\nhost: x\r\n\r\n', 400, 'malformed_request'],
  ['a header line without a colon', 'GET /v1/models HTTP/1.1\r\nhost: x\r\nnocolon\r\n\r\n', 400, 'malformed_request'],
  ['a non-numeric content-length', post('/v1/chat/completions', chat(), { ...json, 'content-length': 'ten' }), 400, 'malformed_request'],
  ['a negative content-length', post('/v1/chat/completions', chat(), { ...json, 'content-length': '-5' }), 400, 'malformed_request'],
  [
    'two different content-lengths',
    `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\n{}{}`,
    400,
    'malformed_request',
  ],
  [
    'content-length with chunked',
    `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n`,
    400,
    'malformed_request',
  ],
  [
    'a bad chunk size',
    `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${GOOD}\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    400,
    'malformed_request',
  ],
  ['a 20 KiB header', httpBytes('GET', '/v1/models', { ...auth, 'x-big': 'a'.repeat(20 * 1024) }), 431, 'request_headers_too_large'],
  ['an unknown route with a key', httpBytes('GET', '/v1/nope', auth), 404, 'unknown_url'],
  ['an unknown POST route with a key', post('/v2/chat', chat()), 404, 'unknown_url'],
  ['an unknown route without a key', httpBytes('GET', '/v1/nope', {}), 401, 'missing_api_key'],
  ['an unknown route with a bad key', httpBytes('GET', '/admin', { authorization: 'Bearer sk-llmgw-wrong' }), 401, 'invalid_api_key'],
  ['GET on a POST route', httpBytes('GET', '/v1/chat/completions', auth), 405, 'method_not_allowed'],
  ['DELETE /v1/models', httpBytes('DELETE', '/v1/models', auth), 405, 'method_not_allowed'],
  ['a route disabled by config', post('/v1/score', '{"model":"m","text_1":"a","text_2":"b"}'), 404, 'unknown_url'],
  ['a body over the limit (content-length)', post('/v1/chat/completions', chat({ pad: 'x'.repeat(LIMIT) })), 413, 'request_too_large'],
  [
    'a body over the limit (chunked)',
    [
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nconnection: close\r\nauthorization: Bearer ${GOOD}\r\ntransfer-encoding: chunked\r\n\r\n`,
      ...Array.from({ length: 3 }, () => `${(LIMIT / 2).toString(16)}\r\n${'x'.repeat(LIMIT / 2)}\r\n`),
      '0\r\n\r\n',
    ],
    413,
    'request_too_large',
  ],
  [
    'a multipart body',
    post('/v1/chat/completions', '--b\r\ncontent-disposition: form-data; name="model"\r\n\r\nm\r\n--b--\r\n', {
      ...auth,
      'content-type': 'multipart/form-data; boundary=b',
    }),
    400,
    'invalid_json',
  ],
  // --- auth ----------------------------------------------------------------------------------
  ['no API key', post('/v1/chat/completions', chat(), { 'content-type': 'application/json' }), 401, 'missing_api_key'],
  ['a Basic authorization', post('/v1/chat/completions', chat(), { 'content-type': 'application/json', authorization: 'Basic dTpw' }), 401, 'missing_api_key'],
  ['an empty bearer', post('/v1/chat/completions', chat(), { 'content-type': 'application/json', authorization: 'Bearer ' }), 401, 'missing_api_key'],
  [
    'an unknown key',
    post('/v1/chat/completions', chat(), { 'content-type': 'application/json', authorization: 'Bearer sk-llmgw-nope' }),
    401,
    'invalid_api_key',
  ],
  [
    "a model off the key's allowlist",
    post('/v1/chat/completions', chat(), { 'content-type': 'application/json', authorization: `Bearer ${NARROW}` }),
    403,
    'model_not_found',
    'model',
  ],
  // --- JSON ----------------------------------------------------------------------------------
  ['an empty body', post('/v1/chat/completions', ''), 400, 'invalid_value'],
  ['not JSON', post('/v1/chat/completions', '{"model":'), 400, 'invalid_json'],
  ['a truncated string', post('/v1/chat/completions', '{"model":"m'), 400, 'invalid_json'],
  ['trailing garbage', post('/v1/chat/completions', `${chat()}xyz`), 400, 'invalid_json'],
  ['a JSON array', post('/v1/chat/completions', '[]'), 400, 'invalid_value'],
  ['a JSON string', post('/v1/chat/completions', '"hello"'), 400, 'invalid_value'],
  ['JSON null', post('/v1/chat/completions', 'null'), 400, 'invalid_value'],
  ['a number', post('/v1/chat/completions', '42'), 400, 'invalid_value'],
  ['nesting deeper than json_max_depth', post('/v1/chat/completions', `{"model":"m","x":${'['.repeat(200)}${']'.repeat(200)}}`), 400, 'invalid_json'],
  ['a 30 000-deep array', post('/v1/chat/completions', `${'['.repeat(30_000)}${']'.repeat(30_000)}`), 400, 'invalid_json'],
  // --- chat fields, where OpenAI validates -----------------------------------------------------
  ['no model', post('/v1/chat/completions', '{"messages":[{"role":"user","content":"x"}]}'), 400, 'invalid_value', 'model'],
  ['a numeric model', post('/v1/chat/completions', chat({ model: 7 })), 400, 'invalid_value', 'model'],
  ['an empty model', post('/v1/chat/completions', chat({ model: '' })), 400, 'invalid_value', 'model'],
  ['no messages', post('/v1/chat/completions', '{"model":"m"}'), 400, 'invalid_value', 'messages'],
  ['empty messages', post('/v1/chat/completions', chat({ messages: [] })), 400, 'invalid_value', 'messages'],
  ['messages as a string', post('/v1/chat/completions', chat({ messages: 'hi' })), 400, 'invalid_value', 'messages'],
  ['a message that is not an object', post('/v1/chat/completions', chat({ messages: ['hi'] })), 400, 'invalid_value', 'messages.0'],
  ['an unknown role', post('/v1/chat/completions', withMessage({ role: 'wizard', content: 'x' })), 400, 'invalid_value', 'messages.0.role'],
  ['a message without a role', post('/v1/chat/completions', withMessage({ content: 'x' })), 400, 'invalid_value', 'messages.0.role'],
  ['numeric content', post('/v1/chat/completions', withMessage({ role: 'user', content: 5 })), 400, 'invalid_value', 'messages.0.content'],
  [
    'a content part without a type',
    post('/v1/chat/completions', withMessage({ role: 'user', content: [{ text: 'x' }] })),
    400,
    'invalid_value',
    'messages.0.content',
  ],
  ['temperature 3', post('/v1/chat/completions', chat({ temperature: 3 })), 400, 'invalid_value', 'temperature'],
  ['temperature -0.5', post('/v1/chat/completions', chat({ temperature: -0.5 })), 400, 'invalid_value', 'temperature'],
  ['temperature as a string', post('/v1/chat/completions', chat({ temperature: 'hot' })), 400, 'invalid_value', 'temperature'],
  ['top_p 1.5', post('/v1/chat/completions', chat({ top_p: 1.5 })), 400, 'invalid_value', 'top_p'],
  ['top_p -0.1', post('/v1/chat/completions', chat({ top_p: -0.1 })), 400, 'invalid_value', 'top_p'],
  ['n 0', post('/v1/chat/completions', chat({ n: 0 })), 400, 'invalid_value', 'n'],
  ['n 1.5', post('/v1/chat/completions', chat({ n: 1.5 })), 400, 'invalid_value', 'n'],
  ['n 129', post('/v1/chat/completions', chat({ n: 129 })), 400, 'invalid_value', 'n'],
  ['max_tokens -1', post('/v1/chat/completions', chat({ max_tokens: -1 })), 400, 'invalid_value', 'max_tokens'],
  ['max_tokens as a string', post('/v1/chat/completions', chat({ max_tokens: 'many' })), 400, 'invalid_value', 'max_tokens'],
  ['max_completion_tokens 2.5', post('/v1/chat/completions', chat({ max_completion_tokens: 2.5 })), 400, 'invalid_value', 'max_completion_tokens'],
  ['stream "yes"', post('/v1/chat/completions', chat({ stream: 'yes' })), 400, 'invalid_value', 'stream'],
  ['stream_options as a string', post('/v1/chat/completions', chat({ stream: true, stream_options: 'usage' })), 400, 'invalid_value', 'stream_options'],
  ['stop as a number', post('/v1/chat/completions', chat({ stop: 5 })), 400, 'invalid_value', 'stop'],
  ['seed 1.5', post('/v1/chat/completions', chat({ seed: 1.5 })), 400, 'invalid_value', 'seed'],
  ['tools as an object', post('/v1/chat/completions', chat({ tools: { type: 'function' } })), 400, 'invalid_value', 'tools'],
  ['a function tool without function', post('/v1/chat/completions', chat({ tools: [{ type: 'function' }] })), 400, 'invalid_value', 'tools.0.function'],
  [
    'a function tool without a name',
    post('/v1/chat/completions', chat({ tools: [{ type: 'function', function: { description: 'd' } }] })),
    400,
    'invalid_value',
    'tools.0.function.name',
  ],
  ['a tool without a type', post('/v1/chat/completions', chat({ tools: [{ function: { name: 'f' } }] })), 400, 'invalid_value', 'tools.0.type'],
  ['tool_choice "sometimes"', post('/v1/chat/completions', chat({ tool_choice: 'sometimes' })), 400, 'invalid_value', 'tool_choice'],
  [
    'tool_choice function without a name',
    post('/v1/chat/completions', chat({ tool_choice: { type: 'function' } })),
    400,
    'invalid_value',
    'tool_choice.function',
  ],
  ['user as a number', post('/v1/chat/completions', chat({ user: 1 })), 400, 'invalid_value', 'user'],
  ['an unknown model', post('/v1/chat/completions', chat({ model: 'zz' })), 404, 'model_not_found', 'model'],
  // --- routing headers -----------------------------------------------------------------------
  ['an unknown x-llmgw-profile', post('/v1/chat/completions', chat(), { ...json, 'x-llmgw-profile': 'nope' }), 400, 'invalid_value'],
  // --- completions, embeddings, responses, pass-through ---------------------------------------------
  ['completions without a prompt', post('/v1/completions', '{"model":"m"}'), 400, 'invalid_value', 'prompt'],
  ['completions with an object prompt', post('/v1/completions', '{"model":"m","prompt":{"a":1}}'), 400, 'invalid_value', 'prompt'],
  ['completions with temperature 9', post('/v1/completions', '{"model":"m","prompt":"x","temperature":9}'), 400, 'invalid_value', 'temperature'],
  ['embeddings without input', post('/v1/embeddings', '{"model":"m"}'), 400, 'invalid_value', 'input'],
  ['embeddings with encoding_format hex', post('/v1/embeddings', '{"model":"m","input":"x","encoding_format":"hex"}'), 400, 'invalid_value', 'encoding_format'],
  ['embeddings with dimensions 0', post('/v1/embeddings', '{"model":"m","input":"x","dimensions":0}'), 400, 'invalid_value', 'dimensions'],
  ['responses without a model', post('/v1/responses', '{"input":"x"}'), 400, 'invalid_value', 'model'],
  ['responses with a numeric input', post('/v1/responses', '{"model":"m","input":5}'), 400, 'invalid_value', 'input'],
  ['responses with top_p 2', post('/v1/responses', '{"model":"m","input":"x","top_p":2}'), 400, 'invalid_value', 'top_p'],
  ['responses with max_output_tokens 0', post('/v1/responses', '{"model":"m","input":"x","max_output_tokens":0}'), 400, 'invalid_value', 'max_output_tokens'],
  ['rerank without a model', post('/v1/rerank', '{"query":"q","documents":["a"]}'), 400, 'invalid_value', 'model'],
  ['tokenize for an unknown model', post('/tokenize', '{"model":"zz","prompt":"x"}'), 404, 'model_not_found', 'model'],
  // --- engine errors keep their meaning --------------------------------------------------------
  ['a prompt the engine finds too long', post('/v1/chat/completions', chat({ model: 'short' })), 400, 'context_length_exceeded'],
];

describe('bad input', () => {
  let up: FakeUpstream;
  let router: RunningRouter;
  beforeAll(async () => {
    up = await fakeUpstream((req, res, body) => {
      if (JSON.parse(body).model === 'short') {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: {
              message: "This model's maximum context length is 16 tokens. However, you requested 40 tokens.",
              type: 'BadRequestError',
              param: null,
              code: 400,
            },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/v1/chat/completions' ? chatJson() : '{"ok":true}');
    });
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 60_000,
        body_limit_bytes: LIMIT,
        body_discard_limit_bytes: 4 * LIMIT,
        json_max_depth: 64,
        passthrough_routes: ['/v1/rerank', '/tokenize', '/detokenize'],
        tenancy: { enabled: true },
        models: [{ name: 'm' }, { name: 'short' }, { name: 'other' }],
        endpoints: [
          { name: 'a', url: up.url, model: 'm' },
          { name: 's', url: up.url, model: 'short' },
          { name: 'o', url: up.url, model: 'other' },
        ],
      },
    });
  });
  afterAll(async () => {
    await router?.close();
    await up?.close();
  });

  it('has at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  // Objects, not rows: a row shorter than the callback's arity would make jest pass `done`.
  const table = cases.map(([name, request, status, code, param]) => ({ name, request, status, code, param }));
  it.each(table)('$name → $status $code', async ({ request, status, code, param }) => {
    const r: RawResponse = await rawRequest(router.url, request);
    expect({ status: r.status, body: r.body.slice(0, 300) }).toMatchObject({ status });
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    const err = JSON.parse(r.body).error;
    expect(err).toEqual(expect.objectContaining({ message: expect.any(String), type: expect.any(String), code }));
    expect(err).toHaveProperty('param');
    if (param !== undefined) expect(err.param).toBe(param);
    // The server is still healthy: a good request on a fresh connection succeeds.
    const ok = await rawRequest(router.url, post('/v1/chat/completions', chat()));
    expect(ok.status).toBe(200);
  });

  it('reads JSON under any content type, the same on every route', async () => {
    for (const ct of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json, text/plain', 'nonsense', undefined]) {
      const headers: Record<string, string> = { ...auth, ...(ct ? { 'content-type': ct } : {}) };
      const r = await rawRequest(router.url, post('/v1/chat/completions', chat(), headers));
      expect({ ct, status: r.status }).toEqual({ ct, status: 200 });
    }
  });

  it('passes unknown fields through to the engine untouched', async () => {
    up.hits.length = 0;
    const body = chat({ vendor_knob: { deep: [1, 'two', null] }, logit_bias: { '50256': -100 } });
    const r = await rawRequest(router.url, post('/v1/chat/completions', body));
    expect(r.status).toBe(200);
    expect(up.hits.at(-1)?.raw).toBe(body);
  });

  it('answers 413 to a client that sends the whole body before reading (Node fetch)', async () => {
    const r = await fetch(`${router.url}/v1/chat/completions`, { method: 'POST', headers: json, body: chat({ pad: 'x'.repeat(2 * LIMIT) }) });
    expect(r.status).toBe(413);
    expect(((await r.json()) as any).error.code).toBe('request_too_large');
  });
});
