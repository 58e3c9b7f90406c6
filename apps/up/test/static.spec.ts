import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { STOP_DEADLINE_MS } from '../src/main';
import { ok, UpProcess } from './spawn-up';

// `llmgw up --static`: the fixed-endpoint mode (no control plane): sim-engines started directly,
// routers configured with their URLs; ctl.yaml names accounting only.
const up = new UpProcess();

beforeAll(() => up.start('--static'));
afterAll(() => up.cleanup());

describe('llmgw up --static', () => {
  it('runs fixed sim-engine endpoints and no control plane, and serves with the demo key', async () => {
    await up.match(/llmgw is up/, 150_000);
    const routerUrl = (await up.match(/router 1\s+(http:\/\/\S+)\/v1/, 1_000))[1];
    const key = (await up.match(/demo API key (sk-llmgw-\S+)/, 1_000))[1];
    expect(up.output).toMatch(/engines\s+2 × sim-engine/);
    expect(up.output).not.toMatch(/inventory|node-agent|placement/);
    const res = await fetch(`${routerUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 8 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-llmgw-replica')).toMatch(/^sim-[12]$/);
    expect(parse(readFileSync(join(up.dataDir, 'ctl.yaml'), 'utf8'))).toEqual({
      accounting: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      tls: { ca: 'tls/ca.crt', cert: 'tls/operator.crt', key: 'tls/operator.key' },
    });
    expect(ok(up.ctl('org', 'list'))).toContain('demo');
  }, 180_000);

  it('stops on SIGINT with status 0', async () => {
    expect(await up.interrupt(STOP_DEADLINE_MS + 25_000)).toEqual({ code: 0, signal: null });
    expect(up.output).toMatch(/SIGINT: stopping…\nstopped\n/);
  }, 60_000);
});
