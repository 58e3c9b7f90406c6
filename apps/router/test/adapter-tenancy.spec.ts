import { MemoryKeyCacheBus, MemoryLimitCounters, MemoryUsageLedger, type AccountingStores, type LedgerRecord } from '@llmgw/stores';
import { waitUntil } from '@llmgw/testing';
import { start, type RunningRouter } from '../src/main';
import { chatJson, fakeUpstream, silentLog, type FakeUpstream } from './helpers';
import { keyWith, testTenancy } from './tenancy-with-keys';

/**
 * LoRA adapters under tenancy (docs/models.md, "Adapters"; docs/accounting.md,
 * "Usage per adapter"): an adapter request is a request for its base model —
 * allowlisted, priced and charged as the base — and its usage record names
 * the adapter. The real tenancy runs on in-process stores; only the key
 * resolver is replaced.
 */
class CapturingLedger extends MemoryUsageLedger {
  readonly records: LedgerRecord[] = [];
  override append(rec: LedgerRecord): Promise<string> {
    this.records.push(rec);
    return super.append(rec);
  }
}
const ledger = new CapturingLedger();
const stores: AccountingStores = { counters: new MemoryLimitCounters(), ledger, keyCacheBus: new MemoryKeyCacheBus() };
testTenancy.stores = stores;
jest.mock('../src/tenancy', () => jest.requireActual('./tenancy-with-keys').tenancyModule());

const registered = new Set<string>();

describe('adapters under tenancy', () => {
  let vllm: FakeUpstream;
  let llama: FakeUpstream;
  let router: RunningRouter;
  beforeAll(async () => {
    // As vLLM: an adapter is served once registered; a restart forgets it.
    vllm = await fakeUpstream((req, res, text) => {
      const body = JSON.parse(text);
      if (req.url === '/v1/load_lora_adapter') registered.add(body.lora_name);
      if (req.url === '/v1/chat/completions' && body.model !== 'other' && !registered.has(body.model)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: { message: `The model \`${body.model}\` does not exist.`, type: 'NotFoundError', code: 404 } }));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.url === '/v1/load_lora_adapter' ? '"ok"' : chatJson());
    });
    llama = await fakeUpstream();
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 60_000,
        tenancy: { enabled: true, prices: { base: { prompt_per_mtok: 1000, completion_per_mtok: 2000 } } },
        models: [
          { name: 'base', adapters: [{ name: 'sql', path: '/adapters/sql' }] },
          { name: 'lbase', adapters: [{ name: 'x' }, { name: 'y', scale: 0.5 }] },
          { name: 'other' },
        ],
        endpoints: [
          { name: 'v', url: vllm.url, model: 'base', engine: 'vllm' },
          { name: 'l', url: llama.url, model: 'lbase', engine: 'llamacpp' },
          { name: 'o', url: vllm.url, model: 'other' },
        ],
      },
    });
  });
  afterAll(async () => {
    await router?.close();
    await vllm?.close();
    await llama?.close();
  });

  const chat = (key: string, model: string) =>
    fetch(`${router.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
    });

  it('a key allowlisted for the base uses its adapters; the engine gets the adapter in its own form; usage names the adapter at the base price', async () => {
    const key = keyWith({ allowedModels: ['base', 'lbase'] }, 'ad');
    for (const model of ['base:sql', 'sql', 'lbase:y']) {
      const r = await chat(key, model);
      expect(r.status).toBe(200);
      await r.arrayBuffer();
    }
    // vLLM: registered once from the configured path, then asked for the adapter by name.
    expect(vllm.hits.filter((h) => h.path === '/v1/load_lora_adapter').map((h) => h.body)).toEqual([{ lora_name: 'sql', lora_path: '/adapters/sql' }]);
    expect(vllm.hits.filter((h) => h.path === '/v1/chat/completions').map((h) => h.body.model)).toEqual(['sql', 'sql']);
    // llama.cpp: the base model, the adapter applied by id at its scale.
    expect(llama.hits.map((h) => [h.body.model, h.body.lora])).toEqual([['lbase', [{ id: 1, scale: 0.5 }]]]);
    await waitUntil(() => ledger.records.filter((r) => r.keyId === 'ad-0').length === 3, 'three usage records');
    const recs = ledger.records.filter((r) => r.keyId === 'ad-0');
    expect(recs.map((r) => [r.model, r.servedModel, r.adapter])).toEqual([
      ['base', 'base', 'sql'],
      ['base', 'base', 'sql'],
      ['lbase', 'lbase', 'y'],
    ]);
    // The fake engine reports 3 prompt + 1 completion tokens: 3×1000 + 1×2000 micro-units at the base's price.
    expect(recs[0]!.costMicros).toBe(5000);
  });

  it('registers an adapter again on a vLLM replica that restarted and forgot it, and serves the request', async () => {
    registered.clear();
    vllm.hits.length = 0;
    const r = await chat(keyWith({}, 'rs'), 'sql');
    expect(r.status).toBe(200);
    await r.arrayBuffer();
    expect(vllm.hits.map((h) => h.path)).toEqual(['/v1/chat/completions', '/v1/load_lora_adapter', '/v1/chat/completions']);
  });

  it('a key not allowlisted for the base may use none of its adapters (allowlists name models)', async () => {
    for (const allowedModels of [['other'], ['sql']]) {
      const r = await chat(keyWith({ allowedModels }, 'no'), 'base:sql');
      const body = (await r.json()) as any;
      expect(r.status).toBe(403);
      expect(body.error.llmgw_code).toBe('LLMGW_ERR_MODEL_NOT_ALLOWED');
    }
  });

  it('/v1/models lists an adapter with its parent to the keys that may use the base', async () => {
    const ids = async (allowedModels: string[]) => {
      const r = await fetch(`${router.url}/v1/models`, { headers: { authorization: `Bearer ${keyWith({ allowedModels }, 'ls')}` } });
      return ((await r.json()) as any).data.map((m: any) => (m.parent ? `${m.id}<${m.parent}` : m.id));
    };
    expect(await ids(['base'])).toEqual(['base', 'sql<base']);
    expect(await ids(['other'])).toEqual(['other']);
  });
});
