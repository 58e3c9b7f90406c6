import { createLogger } from '@llmgw/observability';
import { startService, type RunningService } from '@llmgw/service';
import { routerService, type RouterHandle } from './main';
import type { RouterCore } from './router';

// The client API's request checks, through fastify's inject() (the router runs on the service host, on free ports).
describe('router request checks (inject)', () => {
  let running: RunningService<RouterHandle>;
  let core: RouterCore;
  beforeAll(async () => {
    const config = {
      listen: '127.0.0.1:0',
      admin_listen: '127.0.0.1:0',
      body_limit_bytes: 2048,
      models: [{ name: 'm', aliases: ['mm'] }],
      endpoints: [{ name: 'a', url: 'http://127.0.0.1:9', model: 'm' }],
      scrape_interval: 60_000,
    };
    running = await startService(routerService(), { config, log: createLogger({ service: 'router', level: 'silent' }) });
    core = running.service.core;
  });
  afterAll(() => running.close());

  const post = (payload: string, headers: Record<string, string> = {}) =>
    core.client.inject({ method: 'POST', url: '/v1/chat/completions', payload, headers: { 'content-type': 'application/json', ...headers } });

  it.each([
    ['not JSON', '{"model":', 400, 'LLMGW_ERR_REQUEST_INVALID_JSON', null],
    ['an empty body', '', 400, 'LLMGW_ERR_REQUEST_INVALID', null],
    ['a JSON array', '[]', 400, 'LLMGW_ERR_REQUEST_INVALID', null],
    ['no messages', '{"model":"m"}', 400, 'LLMGW_ERR_REQUEST_INVALID', 'messages'],
    ['a bad max_tokens', '{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":"many"}', 400, 'LLMGW_ERR_REQUEST_INVALID', 'max_tokens'],
    ['an unknown model', '{"model":"zz","messages":[{"role":"user","content":"x"}]}', 404, 'LLMGW_ERR_MODEL_NOT_FOUND', 'model'],
    [
      'a body over the limit',
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(4096) }] }),
      413,
      'LLMGW_ERR_REQUEST_TOO_LARGE',
      null,
    ],
  ])('answers %s in OpenAI error JSON', async (_what, payload, status, code, param) => {
    const res = await post(payload, { 'x-request-id': 'req-1' });
    expect(res.statusCode).toBe(status);
    expect(res.headers['x-request-id']).toBe('req-1');
    const body = res.json();
    expect(body.error).toMatchObject({ llmgw_code: code, param });
    expect(typeof body.error.message).toBe('string');
    expect(typeof body.error.type).toBe('string');
  });

  it.each([
    ['x-llmgw-profile', 'nope', 'LLMGW_ERR_PROFILE_UNKNOWN'],
    ['x-llmgw-band', 'diamond', 'LLMGW_ERR_BAND_UNKNOWN'],
  ])('rejects an unknown %s', async (header, value, code) => {
    const res = await post('{"model":"mm","messages":[{"role":"user","content":"x"}]}', { [header]: value });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.llmgw_code).toBe(code);
  });

  it('answers 502 after retrying an unreachable only endpoint', async () => {
    const res = await post('{"model":"m","messages":[{"role":"user","content":"x"}]}');
    expect(res.statusCode).toBe(502);
    expect(res.json().error.code).toBe('upstream_connect_error');
  });

  it("lists models and serves the admin endpoints on the host's admin app", async () => {
    const models = await core.client.inject({ method: 'GET', url: '/v1/models' });
    expect(models.json().data.map((m: { id: string }) => m.id)).toEqual(['m', 'mm']);
    expect((await running.admin.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await running.admin.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({ endpoints: 1 });
    const metrics = await running.admin.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toContain('llmgw_requests_total{model="unknown",pool="none",status="404"');
  });
});
