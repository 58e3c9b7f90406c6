import { mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routerConfigSchema, type RouterConfigInput } from '@llmgw/config';
import { LlmgwError } from '@llmgw/errors';
import { createRegistry } from '@llmgw/observability';
import type { AttemptInput, AttemptResult } from '../proxy';
import { providerAttempt } from './attempt';
import { withProviderPrices } from './prices';
import { ProviderResponse } from './response';
import { Providers, providerUrl } from './upstreams';

const cfgWith = (models: RouterConfigInput['models'], tenancy: RouterConfigInput['tenancy'] = {}) => routerConfigSchema.parse({ models, tenancy });
const hosted = (extra: Record<string, unknown> = {}) => ({ name: 'hosted', provider: { base_url: 'https://api.example/v1', model: 'vendor/m', ...extra } });

describe('ProviderResponse', () => {
  it("writes the provider's model name back as the catalog's, in a body and in events", () => {
    const rw = new ProviderResponse('vendor/m', 'hosted');
    const body = rw.body(Buffer.from('{"id":"x","model": "vendor/m","choices":[{"message":{"content":"abcdefgh"}}],"note":"vendor/m"}'));
    expect(JSON.parse(body.toString())).toMatchObject({ model: 'hosted', note: 'vendor/m' });
    const ev = rw.events('data: {"model":"vendor/m","choices":[{"delta":{"content":"abcd"}}]}\n\ndata: [DONE]\n\n');
    expect(ev).toBe('data: {"model":"hosted","choices":[{"delta":{"content":"abcd"}}]}\n\ndata: [DONE]\n\n');
    // 8 + 4 characters of generated text: 3 tokens.
    expect(rw.completionTokens).toBe(3);
  });

  it('counts only the deltas of a Responses API stream, and nothing of the echoed input or usage', () => {
    const rw = new ProviderResponse('a$b', 'c');
    rw.events('event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"12345678"}\n\n');
    rw.events('data: {"type":"response.output_text.done","text":"12345678"}\n\n');
    rw.events('data: {"choices":[{"text":"1234"}],"input":"xxxxxxxxxxxx","usage":{"text":"zzzz"},"model":"a$b"}\n\n');
    expect(rw.completionTokens).toBe(3);
    expect(rw.events('data: {"model":"a$b"}\n\n')).toBe('data: {"model":"c"}\n\n');
  });
});

describe('Providers', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'llmgw-prov-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the key from a file or the environment; a missing one names where it looked, never a value', async () => {
    const file = join(dir, 'key');
    writeFileSync(file, 'sk-file-key\n');
    const p = new Providers(
      cfgWith([hosted({ credentials: { file } }), { name: 'b', provider: { base_url: 'http://b/v1', model: 'b', credentials: { env: 'K_B' } } }]),
      {
        registry: createRegistry('router'),
        env: { K_B: 'sk-env-key' },
      },
    );
    expect(p.authorization('provider:hosted')).toBe('Bearer sk-file-key');
    expect(p.authorization('provider:b')).toBe('Bearer sk-env-key');
    expect(p.authorization('replica-1')).toBeUndefined();
    await p.close();
    const build = (models: RouterConfigInput['models']) => () => new Providers(cfgWith(models), { registry: createRegistry('router'), env: {} });
    expect(build([hosted({ credentials: { file: join(dir, 'absent') } })])).toThrow(
      /models \(hosted\)\.provider\.credentials: cannot read .*absent \(ENOENT\)/,
    );
    expect(build([hosted({ credentials: { env: 'NOPE' } })])).toThrow(/environment variable NOPE is not set/);
  });

  it('reads a key file again once it changed, at most every few seconds, keeping the old key when it cannot', async () => {
    const file = join(dir, 'rotating');
    writeFileSync(file, 'sk-one');
    utimesSync(file, 1_000, 1_000);
    let now = 0;
    const warnings: unknown[] = [];
    const p = new Providers(cfgWith([hosted({ credentials: { file } })]), {
      registry: createRegistry('router'),
      now: () => now,
      log: { warn: (o: unknown) => void warnings.push(o) } as never,
    });
    writeFileSync(file, 'sk-two\n');
    utimesSync(file, 2_000, 2_000);
    now = 1_000;
    expect(p.authorization('provider:hosted')).toBe('Bearer sk-one');
    now = 6_000;
    expect(p.authorization('provider:hosted')).toBe('Bearer sk-two');
    unlinkSync(file);
    now = 12_000;
    expect(p.authorization('provider:hosted')).toBe('Bearer sk-two');
    expect(JSON.stringify(warnings)).toContain('rotating');
    expect(JSON.stringify(warnings)).not.toContain('sk-');
    await p.close();
  });

  it('is one view of its model, usable until max_concurrency requests are in flight or its breaker opens', async () => {
    const p = new Providers(
      { ...cfgWith([hosted({ max_concurrency: 2 })]), breaker: { failure_threshold: 2, base_backoff: 1000, max_backoff: 1000 } },
      { registry: createRegistry('router') },
    );
    expect(p.views('other')).toEqual([]);
    expect(p.views('hosted')[0]).toMatchObject({ id: 'provider:hosted', pool: 'provider:hosted', available: true, batchCapacity: 2 });
    p.health.begin('provider:hosted');
    p.health.begin('provider:hosted');
    expect(p.views('hosted')[0]).toMatchObject({ available: false, inflight: 2 });
    p.health.end('provider:hosted');
    expect(p.views('hosted')[0].available).toBe(true);
    p.health.failure('provider:hosted');
    expect(p.views('hosted')[0].available).toBe(true);
    p.health.failure('provider:hosted');
    expect(p.views('hosted')[0].available).toBe(false);
    expect(p.poolEndpoints()).toEqual([{ id: 'provider:hosted', pool: 'provider:hosted', model: 'hosted', maxNumSeqs: 2 }]);
    await p.close();
  });

  it('opens the breaker on its error rate, even when successes break up every run of faults', async () => {
    const p = new Providers(cfgWith([hosted()]), { registry: createRegistry('router') });
    const id = 'provider:hosted';
    for (let i = 0; i < 9; i++) p.observe(id, i % 2 === 0);
    // 5 faults in 9 answers: too few answers yet, and never 5 faults in a row.
    expect(p.health.breaker(id)).toBe('closed');
    p.observe(id, false);
    p.observe(id, true);
    expect(p.health.breaker(id)).toBe('open');
    await p.close();
  });

  it('a mostly healthy provider keeps its breaker closed', async () => {
    const p = new Providers(cfgWith([hosted()]), { registry: createRegistry('router') });
    for (let i = 0; i < 60; i++) p.observe('provider:hosted', i % 3 === 0);
    expect(p.health.breaker('provider:hosted')).toBe('closed');
    await p.close();
  });

  it('joins API paths under the base URL and its version', () => {
    const at = (base_url: string) => ({ cfg: { base_url } }) as never;
    expect(providerUrl(at('https://a.example/v1'), '/v1/chat/completions')).toBe('https://a.example/v1/chat/completions');
    expect(providerUrl(at('https://a.example/api/v1/'), '/v1/embeddings')).toBe('https://a.example/api/v1/embeddings');
    expect(providerUrl(at('https://g.example/v1beta/openai'), '/v1/chat/completions')).toBe('https://g.example/v1beta/openai/chat/completions');
    expect(providerUrl(at('https://q.example/v1?api-version=2'), '/v1/chat/completions')).toBe('https://q.example/v1/chat/completions?api-version=2');
  });
});

describe('providerAttempt', () => {
  const providers = new Providers(cfgWith([hosted()]), { registry: createRegistry('router') });
  const p = providers.get('provider:hosted')!;
  p.key = 'sk-secret';
  afterAll(() => providers.close());
  const base = {
    url: 'x',
    headers: { authorization: 'Bearer client', 'x-request-id': 'r' },
    timeouts: { firstToken: 1, total: 2, idle: 3 },
  } as unknown as AttemptInput;
  const facts = { apiPath: '/v1/chat/completions', model: 'hosted', estimatedPromptTokens: 7 };

  it("sends the provider's key, URL and timeouts instead of the replica's", () => {
    const { input } = providerAttempt(providers, p, base, facts);
    expect(input).toMatchObject({ url: 'https://api.example/v1/chat/completions', timeouts: { firstToken: 60_000, total: 600_000, idle: 3 } });
    expect(input.headers).toEqual({ authorization: 'Bearer sk-secret', 'x-request-id': 'r' });
  });

  it("cuts the key out of messages, counts a refused key as the provider's fault, and counts usage when none came", () => {
    const { settle } = providerAttempt(providers, p, base, facts);
    const refused = settle({ kind: 'error', error: new LlmgwError('LLMGW_ERR_UPSTREAM_ERROR', 'Incorrect API key provided: sk-secret'), endpointFault: false });
    expect(refused).toMatchObject({ kind: 'error', endpointFault: true });
    expect((refused as Extract<AttemptResult, { kind: 'error' }>).error.message).toBe('Incorrect API key provided: [redacted]');
    const unknown = settle({ kind: 'error', error: new LlmgwError('LLMGW_ERR_MODEL_NOT_FOUND', 'The model `vendor/m` does not exist.'), endpointFault: false });
    expect(unknown).toMatchObject({ kind: 'error', endpointFault: true });
    expect((unknown as Extract<AttemptResult, { kind: 'error' }>).error).toMatchObject({
      code: 'LLMGW_ERR_UPSTREAM_ERROR',
      message: 'the provider does not serve hosted: The model `hosted` does not exist.',
    });
    const bad = settle({ kind: 'error', error: new LlmgwError('LLMGW_ERR_REQUEST_INVALID', 'messages: required'), endpointFault: false });
    expect(bad).toMatchObject({ endpointFault: false });
    const served = settle({ kind: 'served', status: 200, complete: true, endpointFault: false });
    expect(served).toMatchObject({ usage: { promptTokens: 7, completionTokens: 0, cachedTokens: 0 } });
    const reported = { promptTokens: 1, completionTokens: 2, cachedTokens: 0 };
    expect(settle({ kind: 'served', status: 200, complete: true, endpointFault: false, usage: reported })).toMatchObject({ usage: reported });
  });
});

describe('withProviderPrices', () => {
  it("prices a provider's model at its price unless tenancy.prices names it", () => {
    const cfg = cfgWith(
      [
        hosted({ price: { input_per_million: 1, output_per_million: 3 } }),
        { name: 'own', provider: { base_url: 'http://o/v1', model: 'o', price: { input_per_million: 9 } } },
      ],
      { prices: { own: { prompt_per_mtok: 5, completion_per_mtok: 5 } } },
    );
    expect(withProviderPrices(cfg).prices).toEqual({
      hosted: { prompt_per_mtok: 1, completion_per_mtok: 3 },
      own: { prompt_per_mtok: 5, completion_per_mtok: 5 },
    });
  });
});
