import type { Principal } from '@llmgw/contracts';
import type { RouterCore } from '../router';
import { permittedChain, resolveModel } from './resolve-model';
import { contextOf, stageRouter } from './testing';

const principal = (over: Partial<Principal> = {}, allowedModels?: string[]): Principal => ({
  keyId: 'k',
  keyPrefix: 'sk-llmgw-x',
  projectId: 'p',
  teamId: 't',
  orgId: 'o',
  band: 'bronze',
  limits: { rpm: [], tpm: [], budgets: [], allowedModels },
  ...over,
});
const msg = [{ role: 'user', content: 'hi' }];

describe('stage: resolve model', () => {
  let core: RouterCore;
  beforeAll(async () => {
    core = await stageRouter({
      models: [{ name: 'm', aliases: ['mm'], fallbacks: ['f1', 'f2'], adapters: [{ name: 'ad' }] }, { name: 'f1' }, { name: 'f2' }],
      endpoints: [{ name: 'a', url: 'http://127.0.0.1:9', model: 'm' }],
    });
  });
  afterAll(() => core.close());

  it.each([
    ['m', 'm'],
    ['mm', 'm'],
  ])('resolves %s to %s', (requested, model) => {
    const c = contextOf('chat', {}, { model: requested, messages: msg });
    resolveModel(core.state, c);
    expect(c).toMatchObject({ requested, model });
  });

  it.each(['ad', 'm:ad', 'mm:ad'])('resolves the adapter %s to its base model m, with no fallback chain', async (requested) => {
    const c = contextOf('chat', {}, { model: requested, messages: msg });
    resolveModel(core.state, c);
    expect(c).toMatchObject({ requested, model: 'm', adapter: { base: 'm', name: 'ad', id: 0 } });
    await c.plan!.reserve();
    expect(c.plan!.chain).toEqual(['m']);
  });

  it('refuses an unknown model with 404 model_not_found', () => {
    expect(() => resolveModel(core.state, contextOf('chat', {}, { model: 'nope', messages: msg }))).toThrow(
      expect.objectContaining({ code: 'LLMGW_ERR_MODEL_NOT_FOUND', param: 'model' }),
    );
  });

  it('takes the band from the key over the header, else the header, else the default', () => {
    const withKey = contextOf('chat', { 'x-llmgw-band': 'gold' }, { model: 'm', messages: msg });
    withKey.principal = principal();
    resolveModel(core.state, withKey);
    expect(withKey.band).toBe('bronze');
    const header = contextOf('chat', { 'x-llmgw-band': 'gold' }, { model: 'm', messages: msg });
    resolveModel(core.state, header);
    expect(header.band).toBe('gold');
    const none = contextOf('chat', {}, { model: 'm', messages: msg });
    resolveModel(core.state, none);
    expect(none.band).toBe(core.state.cfg.default_band);
  });

  it.each([
    [{ 'x-llmgw-band': 'diamond' }, 'LLMGW_ERR_BAND_UNKNOWN'],
    [{ 'x-llmgw-profile': 'nope' }, 'LLMGW_ERR_PROFILE_UNKNOWN'],
  ])('refuses %j', (headers, code) => {
    expect(() => resolveModel(core.state, contextOf('chat', headers, { model: 'm', messages: msg }))).toThrow(expect.objectContaining({ code }));
  });

  it('estimates tokens as body bytes / 4 plus max_tokens', () => {
    const c = contextOf('chat', {}, { model: 'm', messages: msg, max_tokens: 100 });
    resolveModel(core.state, c);
    expect(c.estimatedPromptTokens).toBe(Math.ceil(c.buf.length / 4));
    expect(c.estimatedTokens).toBe(c.estimatedPromptTokens + 100);
  });

  it.each([
    ['no key', undefined, ['m', 'f1', 'f2']],
    ['a key without an allowlist', principal(), ['m', 'f1', 'f2']],
    ['a key allowed m and f2', principal({}, ['m', 'f2']), ['m', 'f2']],
    ['a key allowed only m', principal({}, ['m']), ['m']],
  ])('with %s the fallback chain is %j', (_what, p, chain) => {
    expect(permittedChain(core.state.catalog, p, 'm')).toEqual(chain);
  });
});
