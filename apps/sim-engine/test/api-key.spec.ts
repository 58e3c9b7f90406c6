import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import { Engines, postJson } from './helpers';

/** The sim-engine's --api-key, as vLLM's: /v1/* needs `Authorization: Bearer <key>`; /health and /metrics stay open. */
describe('sim-engine --api-key', () => {
  const engines = new Engines();
  afterEach(() => engines.closeAll());
  const chat = { model: 'sim-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 };

  it('refuses /v1/* without the key (401, OpenAI error JSON) and with a wrong one; serves with it', async () => {
    const e = await engines.start({ apiKey: 'replica-secret', decodeTps: 0, prefillTps: 0 });
    const none = await postJson(`${e.url}/v1/chat/completions`, chat);
    expect(none.status).toBe(401);
    expect((await none.json()).error).toMatchObject({ code: 'missing_api_key', type: 'invalid_request_error', message: expect.any(String) });
    const wrong = await postJson(`${e.url}/v1/chat/completions`, chat, {
      headers: { 'content-type': 'application/json', authorization: 'Bearer replica-secreT' },
    });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).error.code).toBe('invalid_api_key');
    expect((await fetch(`${e.url}/v1/models`)).status).toBe(401);
    const ok = await postJson(`${e.url}/v1/chat/completions`, chat, {
      headers: { 'content-type': 'application/json', authorization: 'Bearer replica-secret' },
    });
    expect(ok.status).toBe(200);
    expect((await fetch(`${e.url}/v1/models`, { headers: { authorization: 'Bearer replica-secret' } })).status).toBe(200);
    expect((await fetch(`${e.url}/health`)).status).toBe(200);
    expect((await fetch(`${e.url}/metrics`)).status).toBe(200);
  });

  it('without a key every route is open, as before', async () => {
    const e = await engines.start({ decodeTps: 0, prefillTps: 0 });
    expect((await postJson(`${e.url}/v1/chat/completions`, chat)).status).toBe(200);
  });

  it('GET /sim/priorities counts requests by the priority their body carried, open like /metrics', async () => {
    const e = await engines.start({ apiKey: 'k', schedulingPolicy: 'priority', decodeTps: 0, prefillTps: 0 });
    const auth = { 'content-type': 'application/json', authorization: 'Bearer k' };
    for (const priority of [undefined, 0, 3, 3])
      expect((await postJson(`${e.url}/v1/chat/completions`, { ...chat, ...(priority === undefined ? {} : { priority }) }, { headers: auth })).status).toBe(
        200,
      );
    expect(await (await fetch(`${e.url}/sim/priorities`)).json()).toEqual({ by_priority: { none: 1, '0': 1, '3': 2 } });
  });

  it('GET /sim/requests shows the engine’s view of requests that carried an x-request-id, open like /metrics', async () => {
    const e = await engines.start({ apiKey: 'k', decodeTps: 0, prefillTps: 0 });
    const auth = { 'content-type': 'application/json', authorization: 'Bearer k' };
    for (const id of ['plat-1', 'bronze-1', undefined]) {
      expect((await postJson(`${e.url}/v1/chat/completions`, chat, { headers: { ...auth, ...(id ? { 'x-request-id': id } : {}) } })).status).toBe(200);
    }
    const all = (await (await fetch(`${e.url}/sim/requests`)).json()) as { requests: Array<Record<string, unknown>> };
    expect(all.requests.map((r) => r.request_id)).toEqual(['plat-1', 'bronze-1']);
    expect(all.requests[0]).toMatchObject({ slot_free_on_arrival: true, ahead_on_arrival: 0, priority: 0 });
    const plat = (await (await fetch(`${e.url}/sim/requests?prefix=plat-`)).json()) as { requests: Array<Record<string, unknown>> };
    expect(plat.requests.map((r) => r.request_id)).toEqual(['plat-1']);
  });

  describe('as a process', () => {
    let role: SpawnedRole | undefined;
    afterEach(async () => {
      await role?.stop('SIGKILL');
      role = undefined;
    });

    it('takes the key from VLLM_API_KEY (how the node-agent passes it, off the command line)', async () => {
      role = await spawnRole('sim-engine', ['--port', '0', '--decode-tps', '0', '--prefill-tps', '0'], { env: { VLLM_API_KEY: 'from-env' } });
      expect((await postJson(`${role.url}/v1/chat/completions`, chat)).status).toBe(401);
      expect(
        (await postJson(`${role.url}/v1/chat/completions`, chat, { headers: { 'content-type': 'application/json', authorization: 'Bearer from-env' } })).status,
      ).toBe(200);
    });

    it('--api-key wins over VLLM_API_KEY', async () => {
      role = await spawnRole('sim-engine', ['--port', '0', '--api-key', 'from-flag', '--decode-tps', '0'], { env: { VLLM_API_KEY: 'from-env' } });
      expect((await fetch(`${role.url}/v1/models`, { headers: { authorization: 'Bearer from-env' } })).status).toBe(401);
      expect((await fetch(`${role.url}/v1/models`, { headers: { authorization: 'Bearer from-flag' } })).status).toBe(200);
    });
  });
});
