import { buildProfiles, createDefaultRegistry, type LoraScorer } from '@llmgw/scheduling';
import { join } from 'node:path';
import { parseCatalog } from './catalog';
import { yamlExamples } from './doc-examples';

describe('docs/models.md examples', () => {
  const examples = yamlExamples(join(__dirname, '../../../docs/models.md'), 'catalog.yaml');

  it('has one for sources, adapters and providers, and each parses', () => {
    expect(examples).toHaveLength(3);
    const [sources, adapters, providers] = examples.map((e, i) => parseCatalog(e, `docs/models.md example ${i + 1}`));
    expect([...sources.weights.keys()]).toEqual(['llama-3.1-8b', 'qwen-2.5-7b']);
    expect(sources.weights.get('qwen-2.5-7b')?.credentials).toEqual({ env: 'HF_MIRROR_TOKEN' });
    expect(adapters.adapterBase.get('sql-writer')?.base).toBe('llama-3.1-8b');
    expect(adapters.maxLoadedAdapters.get('llama-3.1-8b')).toBe(1);
    expect(providers.providers.get('hosted-8b')).toMatchObject({
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      first_token_timeout: 30_000,
      total_timeout: 600_000,
    });
    expect(providers.byName.get('llama-3.1-8b')?.fallbacks).toEqual(['hosted-8b']);
  });

  it('the router example builds a profile with the lora scorer', () => {
    const [router] = yamlExamples(join(__dirname, '../../../docs/models.md'), 'router.yaml') as Array<{ profiles: Record<string, unknown> }>;
    const profiles = buildProfiles(router.profiles as never, createDefaultRegistry());
    const lora = profiles.get('adapters')!.scorers.find((w) => w.scorer.type === 'lora-scorer')!;
    expect(lora.weight).toBe(3);
    expect((lora.scorer as LoraScorer).params.max_loaded_adapters).toBe(1);
  });
});
