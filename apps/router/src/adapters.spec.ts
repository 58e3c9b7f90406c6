import { parseConfig, routerConfigSchema } from '@llmgw/config';
import { StaticEndpointSource } from '@llmgw/endpoints';
import { rewriteForAdapter } from './adapters';
import { ModelCatalog } from './catalog';

const cfg = parseConfig(routerConfigSchema, {
  models: [
    { name: 'base', aliases: ['b'], adapters: [{ name: 'sql' }, { name: 'legal', scale: 0.8, path: '/a/legal' }] },
    { name: 'other', adapters: [{ name: 'poem' }] },
    { name: 'tag:v1' },
  ],
});
const src = new StaticEndpointSource([
  { name: 'e', url: 'http://h:1', model: 'base' },
  { name: 'h', url: 'http://h:2', model: 'hub' },
]);
// The placement-scheduler's catalog view knows an adapter the router's config does not.
const view = {
  resolve: (n: string) => (n === 'hub' || n === 'hub-lora' ? 'hub' : undefined),
  adapterOf: (n: string) => (n === 'hub-lora' ? { base: 'hub', name: 'hub-lora', id: 2, scale: 1 } : undefined),
  adapters: () => [{ base: 'hub', name: 'hub-lora', id: 2, scale: 1 }],
};
const cat = new ModelCatalog(cfg, src, view);

describe('adapters through the router', () => {
  it.each([
    ['sql', { base: 'base', name: 'sql', id: 0, scale: 1 }],
    ['base:legal', { base: 'base', name: 'legal', id: 1, scale: 0.8, path: '/a/legal' }],
    ['b:sql', { base: 'base', name: 'sql', id: 0, scale: 1 }], // the base by its alias
    ['hub-lora', { base: 'hub', name: 'hub-lora', id: 2, scale: 1 }],
    ['hub:hub-lora', { base: 'hub', name: 'hub-lora', id: 2, scale: 1 }],
    ['other:sql', undefined], // not an adapter of that base
    ['base:nope', undefined],
    ['base', undefined],
    ['tag:v1', undefined], // a model whose name has a colon stays a model
    ['base:', undefined],
  ])('adapter(%s)', (name, want) => {
    expect(cat.adapter(name)).toEqual(want);
  });

  it("lists adapters as models with their base as parent, the catalog view's too", () => {
    expect(cat.list().filter((m) => m.parent)).toEqual([
      { id: 'hub-lora', parent: 'hub' },
      { id: 'legal', parent: 'base' },
      { id: 'poem', parent: 'other' },
      { id: 'sql', parent: 'base' },
    ]);
  });

  it("rewrites the body into each engine's form", () => {
    const legal = cat.adapter('base:legal')!;
    const v: Record<string, unknown> = { model: 'base:legal', lora: [{ id: 0, scale: 1 }] };
    rewriteForAdapter(v, legal, 'vllm');
    expect(v).toEqual({ model: 'legal' });
    const l: Record<string, unknown> = { model: 'base:legal' };
    rewriteForAdapter(l, legal, 'llamacpp');
    expect(l).toEqual({ model: 'base', lora: [{ id: 1, scale: 0.8 }] });
    const s: Record<string, unknown> = { model: 'base:legal', lora: [{ id: 0, scale: 1 }] };
    rewriteForAdapter(s, legal, 'sglang');
    expect(s).toEqual({ model: 'base', lora_path: 'legal' });
    // A retry on another engine: each form clears the fields of the others.
    rewriteForAdapter(s, legal, 'llamacpp');
    expect(s).toEqual({ model: 'base', lora: [{ id: 1, scale: 0.8 }] });
    rewriteForAdapter(s, legal, 'sglang');
    rewriteForAdapter(s, legal, 'vllm');
    expect(s).toEqual({ model: 'legal' });
  });
});
