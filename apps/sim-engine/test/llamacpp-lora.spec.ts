import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import { postJson } from './helpers';

/**
 * Adapters given on the command line, as the node-agent starts engines
 * (docs/node-agent.md, "Adapters"): llama.cpp's `--lora` (applied per
 * request through the `lora` field) and vLLM's `--enable-lora --lora-modules`.
 */
describe('sim-engine: adapters from the command line', () => {
  let role: SpawnedRole | undefined;
  afterEach(async () => {
    await role?.stop();
    role = undefined;
  });

  it('llama.cpp: --lora adapters (ids in order), none applied until a request names one; the request applies it, /lora-adapters lists and sets scales', async () => {
    role = await spawnRole('sim-engine', [
      '--port',
      '0',
      '--model',
      'base',
      '--dialect',
      'llamacpp',
      '--lora',
      '/a/sql.gguf',
      '--lora',
      '/a/legal.gguf',
      '--lora-init-without-apply',
      '--decode-tps',
      '0',
      '--prefill-tps',
      '0',
      '--max-tokens-default',
      '8',
    ]);
    const url = role.url;
    expect(await (await fetch(`${url}/lora-adapters`)).json()).toEqual([
      { id: 0, path: '/a/sql.gguf', scale: 0 },
      { id: 1, path: '/a/legal.gguf', scale: 0 },
    ]);

    const ask = async (lora?: unknown) => {
      const r = await postJson(`${url}/v1/chat/completions`, {
        model: 'base',
        messages: [{ role: 'user', content: 'the same prompt' }],
        max_tokens: 8,
        seed: 1,
        ...(lora === undefined ? {} : { lora }),
      });
      return { status: r.status, body: await r.json() };
    };
    const plain = await ask();
    const sql = await ask([{ id: 0, scale: 1 }]);
    const legal = await ask([{ id: 1, scale: 0.8 }]);
    const sqlAgain = await ask([{ id: 0, scale: 1 }]);
    for (const r of [plain, sql, legal, sqlAgain]) expect(r.status).toBe(200);
    const text = (r: { body: any }) => r.body.choices[0].message.content as string;
    // An applied adapter changes the output, the same adapter the same way.
    expect(new Set([text(plain), text(sql), text(legal)]).size).toBe(3);
    expect(text(sqlAgain)).toBe(text(sql));
    expect(await (await fetch(`${url}/sim/lora-requests`)).json()).toEqual({ applied: { 0: 2, 1: 1 } });

    // A bad adapter id or shape is a 400 in OpenAI's format, naming the field.
    const bad = await ask([{ id: 7, scale: 1 }]);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ param: 'lora', message: 'invalid adapter id 7: 2 adapter(s) loaded' });
    expect((await ask('sql')).status).toBe(400);

    // The global scales: POST sets them (adapters not named go to 0); a request without `lora` then gets them.
    expect(await (await postJson(`${url}/lora-adapters`, [{ id: 1, scale: 0.5 }])).json()).toEqual({ success: true });
    expect(await (await fetch(`${url}/lora-adapters`)).json()).toEqual([
      { id: 0, path: '/a/sql.gguf', scale: 0 },
      { id: 1, path: '/a/legal.gguf', scale: 0.5 },
    ]);
    await ask();
    expect(await (await fetch(`${url}/sim/lora-requests`)).json()).toEqual({ applied: { 0: 2, 1: 2 } });
  });

  it('vLLM: --enable-lora --lora-modules name=path registers adapters at start (one slot without --max-loras)', async () => {
    role = await spawnRole('sim-engine', [
      '--port',
      '0',
      '--model',
      'base',
      '--enable-lora',
      '--lora-modules',
      'sql=/a/sql',
      'legal=/a/legal',
      '--lora-load-ms',
      '0',
      '--decode-tps',
      '0',
      '--prefill-tps',
      '0',
    ]);
    const models = (await (await fetch(`${role.url}/v1/models`)).json()) as { data: Array<{ id: string; root: string }> };
    expect(models.data.map((m) => [m.id, m.root])).toEqual([
      ['base', 'base'],
      ['sql', '/a/sql'],
      ['legal', '/a/legal'],
    ]);
    for (const m of ['sql', 'legal', 'sql'])
      expect((await postJson(`${role.url}/v1/chat/completions`, { model: m, messages: [{ role: 'user', content: 'x' }], max_tokens: 1 })).status).toBe(200);
    expect(await (await fetch(`${role.url}/sim/lora`)).json()).toMatchObject({ loads: 3, maxLora: 1 });
  });
});
