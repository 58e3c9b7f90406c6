import { parseConfig, routerConfigSchema } from '@llmgw/config';
import { StaticEndpointSource } from '@llmgw/endpoints';
import { ModelCatalog } from './catalog';

const cfg = parseConfig(routerConfigSchema, {
  models: [{ name: 'big', aliases: ['gpt-4o'], fallbacks: ['mid', 'small-alias', 'big'], routing_profile: 'batch' }, { name: 'mid' }],
  model_aliases: { 'small-alias': 'small', dangling: 'ghost' },
});
const src = new StaticEndpointSource([
  { name: 'a', url: 'http://h:1', model: 'big' },
  { name: 'b', url: 'http://h:2', model: 'small' },
]);
const cat = new ModelCatalog(cfg, src);

describe('ModelCatalog', () => {
  it.each([
    ['big', 'big'],
    ['gpt-4o', 'big'],
    ['mid', 'mid'], // configured, no endpoint yet
    ['small', 'small'], // served, not configured
    ['small-alias', 'small'],
    ['dangling', undefined], // alias to nothing
    ['nope', undefined],
  ])('resolve(%s) = %s', (name, want) => {
    expect(cat.resolve(name)).toBe(want);
  });

  it('builds the fallback chain in order, resolving aliases, without repeats', () => {
    expect(cat.chain('big')).toEqual(['big', 'mid', 'small']);
    expect(cat.chain('mid')).toEqual(['mid']);
  });

  it('lists models then aliases that point somewhere', () => {
    expect(cat.list()).toEqual([{ id: 'big' }, { id: 'mid' }, { id: 'small' }, { id: 'gpt-4o', aliasOf: 'big' }, { id: 'small-alias', aliasOf: 'small' }]);
    expect(cat.profileOf('big')).toBe('batch');
  });
});
