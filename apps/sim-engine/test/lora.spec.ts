import { extractStats } from '@llmgw/engine-metrics';
import { waitUntil } from '@llmgw/testing';
import { Engines, postJson } from './helpers';

describe('sim-engine LoRA adapters (vLLM --max-loras)', () => {
  const engines = new Engines();
  afterEach(() => engines.closeAll());

  const chat = (url: string, model: string) => postJson(`${url}/v1/chat/completions`, { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });

  it('loads adapters at runtime, lists them, counts slot loads and reports lora_requests_info', async () => {
    const e = await engines.start({ models: ['base'], maxLoras: 1, loraLoadMs: 5, decodeTps: 0, prefillTps: 0 });
    for (const n of ['sql', 'legal']) {
      const r = await postJson(`${e.url}/v1/load_lora_adapter`, { lora_name: n, lora_path: `/adapters/${n}` });
      expect(r.status).toBe(200);
      expect(await r.text()).toBe(`Success: LoRA adapter '${n}' added successfully.`);
    }
    const again = await postJson(`${e.url}/v1/load_lora_adapter`, { lora_name: 'sql', lora_path: '/x' });
    expect(again.status).toBe(400);
    expect((await again.json()).error.message).toBe("The lora adapter 'sql' has already been loaded.");
    const models = (await (await fetch(`${e.url}/v1/models`)).json()) as { data: Array<{ id: string; parent: string | null }> };
    expect(models.data.map((m) => [m.id, m.parent])).toEqual([
      ['base', null],
      ['sql', 'base'],
      ['legal', 'base'],
    ]);

    // one slot: sql, sql (in the slot), legal (evicts sql), sql (loads again) = 3 loads
    for (const m of ['sql', 'sql', 'legal', 'sql']) expect((await chat(e.url, m)).status).toBe(200);
    expect(((await (await fetch(`${e.url}/sim/lora`)).json()) as { loads: number }).loads).toBe(3);
    expect((await chat(e.url, 'base')).status).toBe(200);
    expect((await chat(e.url, 'nope')).status).toBe(404);

    const stats = extractStats(await (await fetch(`${e.url}/metrics`)).text(), 'vllm').stats!;
    expect(stats.lora).toEqual({ maxLora: 1, running: [], waiting: [] });
  });

  it('holds a request while every slot runs another adapter, and shows it as waiting', async () => {
    const e = await engines.start({ models: ['base'], maxLoras: 1, loraLoadMs: 0, decodeTps: 20, prefillTps: 0 });
    for (const n of ['a', 'b']) await postJson(`${e.url}/v1/load_lora_adapter`, { lora_name: n, lora_path: `/adapters/${n}` });
    // 40 tokens at 20 tokens/s: a holds the slot for about 2 s, long enough for a loaded machine to see b wait.
    const long = postJson(`${e.url}/v1/chat/completions`, { model: 'a', messages: [{ role: 'user', content: 'x' }], max_tokens: 40 });
    const scrape = async () => extractStats(await (await fetch(`${e.url}/metrics`)).text(), 'vllm').stats!.lora!;
    await waitUntil(async () => (await scrape()).running.includes('a'), 'adapter a running');
    const second = chat(e.url, 'b');
    await waitUntil(async () => (await scrape()).waiting.includes('b'), 'adapter b waiting for the slot');
    expect((await long).status).toBe(200);
    expect((await second).status).toBe(200);
  });

  it('refuses runtime loading without --max-loras', async () => {
    const e = await engines.start({ models: ['base'] });
    const r = await postJson(`${e.url}/v1/load_lora_adapter`, { lora_name: 'x', lora_path: '/x' });
    expect(r.status).toBe(400);
    expect((await r.json()).error.message).toMatch(/--max-loras/);
    expect(await (await fetch(`${e.url}/metrics`)).text()).not.toContain('lora_requests_info');
  });
});

describe('sim-engine LoRA adapters (SGLang --lora-paths)', () => {
  const engines = new Engines();
  afterEach(() => engines.closeAll());

  const chat = (url: string, extra: object) =>
    postJson(`${url}/v1/chat/completions`, { model: 'base', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, ...extra });

  it('serves the adapter a request names in lora_path on the served model, in --max-loras-per-batch slots; an unknown one is a 400', async () => {
    const e = await engines.start({
      models: ['base'],
      dialect: 'sglang',
      loraPaths: [
        { name: 'sql', path: '/adapters/sql' },
        { name: 'legal', path: '/adapters/legal' },
      ],
      maxLorasPerBatch: 1,
      loraLoadMs: 5,
      decodeTps: 0,
      prefillTps: 0,
    });
    // one slot: sql, sql, legal (evicts sql), sql (loads again) = 3 loads; a request without lora_path is the base model's
    for (const a of ['sql', 'sql', 'legal', 'sql']) expect((await chat(e.url, { lora_path: a })).status).toBe(200);
    expect((await chat(e.url, {})).status).toBe(200);
    expect(await (await fetch(`${e.url}/sim/lora`)).json()).toMatchObject({ loads: 3, maxLora: 1, served: { sql: 3, legal: 1 } });
    // The adapter is named in lora_path, not as the model (that is vLLM's form).
    expect((await postJson(`${e.url}/v1/chat/completions`, { model: 'sql', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(404);
    const bad = await chat(e.url, { lora_path: 'nope' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ param: 'lora_path', message: 'lora_path "nope" is not an adapter this engine loaded: sql, legal' });
  });

  it('an SGLang engine without --lora-paths refuses lora_path; a vLLM one ignores it, as vLLM does', async () => {
    const sglang = await engines.start({ models: ['base'], dialect: 'sglang', decodeTps: 0, prefillTps: 0 });
    const r = await chat(sglang.url, { lora_path: 'sql' });
    expect(r.status).toBe(400);
    expect((await r.json()).error.message).toMatch(/LoRA is off: start with --lora-paths/);
    const vllm = await engines.start({ models: ['base'], decodeTps: 0, prefillTps: 0 });
    expect((await chat(vllm.url, { lora_path: 'sql' })).status).toBe(200);
  });
});
