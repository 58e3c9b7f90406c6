import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import OpenAI from 'openai';
import { main } from '../src/main';

describe('spawnRole runs sim-engine as a real child process', () => {
  let role: SpawnedRole | undefined;
  afterEach(async () => {
    await role?.stop('SIGKILL');
    role = undefined;
  });

  it('waits for the listening line, serves, and exits 0 on SIGTERM', async () => {
    role = await spawnRole('sim-engine', ['--port', '0', '--model', 'a,b', '--decode-tps', '0', '--prefill-tps', '0']);
    expect(role.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(role.port).toBeGreaterThan(0);
    expect((await fetch(`${role.url}/health`)).status).toBe(200);
    const openai = new OpenAI({ baseURL: `${role.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const r = await openai.chat.completions.create({ model: 'b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
    expect(r.usage?.completion_tokens).toBe(2);
    const listening = role
      .output()
      .map((l) => JSON.parse(l))
      .find((j) => j.msg === 'listening');
    expect(listening).toMatchObject({ service: 'sim-engine', url: role.url });
    expect(await role.stop()).toBe(0);
  });

  it('--listen takes host and port in one', async () => {
    role = await spawnRole('sim-engine', ['--listen', '127.0.0.1:0']);
    expect(role.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${role.url}/health`)).status).toBe(200);
  });

  it.each([
    ['a malformed --listen', ['--listen', 'nowhere']],
    ['a bad flag value', ['--port', '0', '--dialect', 'tgi']],
    ['an unknown flag', ['--port', '0', '--nope']],
  ])('rejects %s: the process exits before listening', async (_n, args) => {
    await expect(spawnRole('sim-engine', args)).rejects.toThrow(/exited \(2\) before listening/);
  });

  it('--help documents every flag', async () => {
    const out: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write;
    try {
      expect(await main(['--help'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    const help = out.join('');
    for (const f of [
      '--host',
      '--port',
      '--model',
      '--max-model-len',
      '--max-num-seqs',
      '--num-gpu-blocks',
      '--prefix-cache-blocks',
      '--prefill-tps',
      '--decode-tps',
      '--batch-contention',
      '--fail-rate',
      '--seed',
      '--dialect',
      '--max-tokens-default',
    ]) {
      expect(help).toContain(f);
    }
  });
});
