import { ConfigError, parseConfig } from './load';
import { simEngineConfigSchema } from './sim-engine';

describe('simEngineConfigSchema', () => {
  it('fills every default and freezes the result', () => {
    const c = parseConfig(simEngineConfigSchema, {}, 'test');
    expect(c).toMatchObject({ host: '127.0.0.1', port: 8000, models: ['sim-model'], blockSize: 16, dialect: 'vllm', prefillTps: 8000, decodeTps: 50 });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.models)).toBe(true);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown key', { colour: 'red' }, /colour/],
    ['a negative port', { port: -1 }, /port/],
    ['a block size other than 16', { blockSize: 32 }, /blockSize/],
    ['a fail rate above 1', { failRate: 1.5 }, /failRate/],
    ['an unknown dialect', { dialect: 'tgi' }, /dialect/],
    ['no models', { models: [] }, /models/],
    ['a fractional max-num-seqs', { maxNumSeqs: 1.5 }, /maxNumSeqs/],
  ])('rejects %s', (_n, raw, re) => {
    expect(() => parseConfig(simEngineConfigSchema, raw, 'test')).toThrow(re);
  });

  it('reports every problem at once', () => {
    try {
      parseConfig(simEngineConfigSchema, { port: -1, decodeTps: -2, dialect: 'x' }, 'flags');
      throw new Error('expected a ConfigError');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues).toHaveLength(3);
    }
  });
});
