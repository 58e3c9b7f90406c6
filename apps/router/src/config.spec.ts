import { join } from 'node:path';
import { ConfigError, loadConfigFile, parseConfig, routerConfigSchema } from '@llmgw/config';
import { buildProfiles } from '@llmgw/scheduling';

const EXAMPLE = join(__dirname, '../../../deploy/examples/router.yaml');

describe('router config', () => {
  it('parses deploy/examples/router.yaml, and its profiles build', () => {
    const cfg = loadConfigFile(routerConfigSchema, EXAMPLE);
    expect(cfg.timeouts).toEqual({ connect: 5000, first_token: 60_000, total: 600_000, idle: 30_000 });
    expect(cfg.endpoints).toHaveLength(5);
    expect(cfg.endpoints[3]).toMatchObject({ engine: 'sglang', pool: 'default', priority: 0, weight: 100 });
    expect(Object.isFrozen(cfg)).toBe(true);
    const profiles = buildProfiles(cfg.profiles as never);
    expect([...profiles.keys()].sort()).toEqual(['batch', 'chat', 'debug', 'long-context', 'sessions']);
    // The example's chat is the built-in one; session affinity lives in its own profile.
    expect(profiles.get('chat')!.scorers.map((s) => [s.scorer.name, s.weight])).toEqual([
      ['prefix', 3],
      ['queue', 1],
      ['kv', 1],
      ['inflight', 1],
    ]);
    expect(profiles.get('sessions')!.scorers.map((s) => s.scorer.name)).toContain('session');
  });

  it('fills every default from an empty file', () => {
    const cfg = parseConfig(routerConfigSchema, {});
    expect(cfg).toMatchObject({
      listen: '127.0.0.1:8080',
      listen_sockets: 8,
      admin_listen: '127.0.0.1:9090',
      retries: 2,
      cooldown_seconds: 15,
      inject_usage: true,
      scrape_interval: 2000,
    });
  });

  it('reports every problem at once', () => {
    let err: ConfigError | undefined;
    try {
      parseConfig(routerConfigSchema, { retries: -1, timeouts: { idle: 'soon' }, endpoints: [{ name: 'a', url: 'nope', model: 'm' }], colour: 'red' });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.issues.length).toBeGreaterThanOrEqual(4);
    expect(err!.issues.join('\n')).toMatch(/retries/);
    expect(err!.issues.join('\n')).toMatch(/timeouts\.idle/);
    expect(err!.issues.join('\n')).toMatch(/endpoints\.0\.url/);
  });

  it('takes listen_sockets from 1 to 64 and names the key when it is out of range', () => {
    expect(parseConfig(routerConfigSchema, { listen_sockets: 1 }).listen_sockets).toBe(1);
    expect(parseConfig(routerConfigSchema, { listen_sockets: 64 }).listen_sockets).toBe(64);
    for (const bad of [0, 65, 2.5, 'eight']) {
      expect(() => parseConfig(routerConfigSchema, { listen_sockets: bad })).toThrow(/listen_sockets/);
    }
  });
});
