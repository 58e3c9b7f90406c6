import { yamlExamples } from '@llmgw/config';
import { join } from 'node:path';
import { parseAgentConfig } from '../config';

describe('docs/models.md agent example', () => {
  it('parses, with sizes in bytes', () => {
    const [raw] = yamlExamples(join(__dirname, '../../../../docs/models.md'), 'agent.yaml');
    const cfg = parseAgentConfig(raw);
    expect(cfg.model_cache).toEqual({ min_free: 50 * 2 ** 30, bandwidth: 400 * 2 ** 20, parallel_files: 4 });
    expect(parseAgentConfig({}).model_cache).toEqual({ min_free: 20 * 2 ** 30, bandwidth: 0, parallel_files: 4 });
    expect(() => parseAgentConfig({ model_cache: { min_free: 'lots' } })).toThrow(/invalid size "lots"/);
    expect(parseAgentConfig({ model_cache: { bandwidth: '2.5GB' } }).model_cache.bandwidth).toBe(2.5e9);
  });
});
