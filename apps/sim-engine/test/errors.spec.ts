import { Engines, postJson, type JsonResponse } from './helpers';

const engines = new Engines();
afterEach(() => engines.closeAll());

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('bad input gets OpenAI error JSON with the right status, never a crash', () => {
  it.each<[string, string, string, unknown, number, string, string | null]>([
    ['malformed JSON', 'POST', '/v1/chat/completions', '{"model":', 400, 'invalid_json', null],
    ['missing messages', 'POST', '/v1/chat/completions', { model: 'm' }, 400, 'invalid_value', 'messages'],
    ['empty messages', 'POST', '/v1/chat/completions', { model: 'm', messages: [] }, 400, 'invalid_value', 'messages'],
    ['missing model', 'POST', '/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }] }, 400, 'invalid_value', 'model'],
    ['wrong type', 'POST', '/v1/chat/completions', chat({ max_tokens: 'ten' }), 400, 'invalid_value', 'max_tokens'],
    ['a JSON array body', 'POST', '/v1/chat/completions', '[1,2]', 400, 'invalid_value', null],
    ['n > 1', 'POST', '/v1/chat/completions', chat({ n: 2 }), 400, 'invalid_value', 'n'],
    ['max_tokens 0', 'POST', '/v1/chat/completions', chat({ max_tokens: 0 }), 400, 'invalid_value', 'max_tokens'],
    ['missing prompt', 'POST', '/v1/completions', { model: 'm' }, 400, 'invalid_value', 'prompt'],
    ['missing input', 'POST', '/v1/embeddings', { model: 'm' }, 400, 'invalid_value', 'input'],
    ['unknown model (chat)', 'POST', '/v1/chat/completions', chat({ model: 'nope' }), 404, 'model_not_found', 'model'],
    ['unknown model (completions)', 'POST', '/v1/completions', { model: 'nope', prompt: 'x' }, 404, 'model_not_found', 'model'],
    ['unknown model (embeddings)', 'POST', '/v1/embeddings', { model: 'nope', input: 'x' }, 404, 'model_not_found', 'model'],
    ['body over the limit', 'POST', '/v1/chat/completions', chat({ pad: 'x'.repeat(5000) }), 413, 'request_too_large', null],
    ['unknown path', 'POST', '/v1/nothing', {}, 404, 'unknown_url', null],
    ['wrong method', 'GET', '/v1/chat/completions', undefined, 405, 'method_not_allowed', null],
  ])('%s → %s %s answers %d', async (_name, method, path, body, status, code, param) => {
    const h = await engines.start({ models: ['m'], bodyLimitBytes: 4096, decodeTps: 0, prefillTps: 0 });
    const res: JsonResponse = await fetch(`${h.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    expect(res.status).toBe(status);
    const json = await res.json();
    expect(json.error).toMatchObject({ code, type: 'invalid_request_error', param });
    expect(typeof json.error.message).toBe('string');
    // still serving afterwards
    expect((await postJson(`${h.url}/v1/chat/completions`, chat({ max_tokens: 1 }))).status).toBe(200);
  });

  it.each([
    ['chat', '/v1/chat/completions', (n: number) => ({ messages: [{ role: 'user', content: 'x'.repeat(n * 4) }] }), 'messages'],
    ['completions', '/v1/completions', (n: number) => ({ prompt: 'x'.repeat(n * 4) }), 'prompt'],
  ])("--max-model-len is enforced with vLLM's message (%s)", async (_n, path, body, what) => {
    const h = await engines.start({ models: ['m'], maxModelLen: 100, decodeTps: 0, prefillTps: 0 });
    const ok = await postJson(`${h.url}${path}`, { model: 'm', max_tokens: 10, ...body(50) });
    expect(ok.status).toBe(200);
    const res = await postJson(`${h.url}${path}`, { model: 'm', max_tokens: 60, ...body(80) });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.type).toBe('invalid_request_error');
    expect(error.code).toBe('context_length_exceeded');
    expect(error.message).toMatch(
      new RegExp(`^This model's maximum context length is 100 tokens\\. However, you requested \\d+ tokens \\(\\d+ in the ${what}, 60 in the completion\\)`),
    );
  });

  it('a --fail-rate of 1 answers every generation with a 500 server_error', async () => {
    const h = await engines.start({ models: ['m'], failRate: 1 });
    const res = await postJson(`${h.url}/v1/chat/completions`, chat());
    expect(res.status).toBe(500);
    expect((await res.json()).error.type).toBe('server_error');
  });
});

describe('request priority (vLLM: a non-default priority needs --scheduling-policy priority)', () => {
  it.each<[string, 'fcfs' | 'priority', unknown, number]>([
    ['priority 0 on fcfs', 'fcfs', 0, 200],
    ['priority 3 on fcfs', 'fcfs', 3, 400],
    ['priority -2 on priority', 'priority', -2, 200],
    ['priority 1.5', 'priority', 1.5, 400],
    ['priority "high"', 'priority', 'high', 400],
  ])('%s → %d', async (_name, policy, priority, status) => {
    const h = await engines.start({ models: ['m'], decodeTps: 0, prefillTps: 0, schedulingPolicy: policy });
    for (const [path, body] of [
      ['/v1/chat/completions', chat({ priority, max_tokens: 1 })],
      ['/v1/completions', { model: 'm', prompt: 'hi', priority, max_tokens: 1 }],
    ] as const) {
      const res = await postJson(`${h.url}${path}`, body);
      const json = await res.json();
      expect(res.status).toBe(status);
      if (status === 400) expect(json.error).toMatchObject({ type: 'invalid_request_error', param: 'priority' });
    }
  });
});
