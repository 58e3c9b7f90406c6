/**
 * One endpoint contract from catalog to router, on real processes: inventory,
 * the placement-scheduler (with a cluster engine key), a router, an admission
 * service and two node-agents on fake GPUs whose shards are real sim-engines.
 * Every assertion is about replicas the scheduler placed: their engines
 * require the replica's secret, carry the request's band as `priority`,
 * publish KV events the router's tier-2 index follows, and declare the batch
 * slots admission grants credits from. The assertions use libs/testing's
 * endpoint-contract helpers so that other stacks (`llmgw up`) can reuse them.
 */
import { AdmissionController, DEFAULT_ADMISSION_CONFIG, type ReplicaStats } from '@llmgw/admission-core';
import { AdmissionRpcClient } from '@llmgw/admission-rpc';
import { deriveEngineSecret, endpointKeys, type EndpointInfo } from '@llmgw/endpoints';
import { blockHashes, llama3ChatTokens } from '@llmgw/prefix';
import { engineChat, kvStoredAt, metricValue, simPriorities, waitUntil } from '@llmgw/testing';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildBundles, E2E_WAIT as WAIT, simProfile, TestFleet } from './fleet';

jest.setTimeout(120_000);

const CONV_ARGS = [
  '--decode-tps',
  '0',
  '--prefill-tps',
  '0',
  '--tokenizer',
  'llama3',
  '--max-tokens-default',
  '8',
  '--num-gpu-blocks',
  '2048',
  '--prefix-cache-blocks',
  '512',
];
const CATALOG = {
  models: [
    // sim's defaults: KV events on, scheduling_policy priority.
    { name: 'conv', source: 'sim/conv', scaling: { min: 2, max: 2 }, profiles: [simProfile('one-gpu', { max_num_seqs: 8, args: CONV_ARGS })] },
    { name: 'wide', source: 'sim/wide', scaling: { min: 1, max: 1 }, profiles: [simProfile('one-gpu', { max_num_seqs: 64 })] },
  ],
};
const NODES = [
  { id: 'c1', fakeGpus: '2xh100-80g,fabric=fab-a' },
  { id: 'c2', fakeGpus: '2xh100-80g,fabric=fab-a' },
];
// Tier 2 alone: no approximate tree, and only the replicas' own KV events count (no pending window);
// a request waits for the tokenizer worker however loaded the machine (no tier-1 fallback to measure here).
const ROUTER = { prefix: { approx_tree: { enabled: false }, kv_events: { enabled: true, pending_window: 0, tokenize_timeout: '60s' } } };

describe('the endpoint contract on replicas the scheduler placed', () => {
  const fleet = new TestFleet(CATALOG, NODES, { router: ROUTER });
  let conv: EndpointInfo[] = [];
  let wide: EndpointInfo;

  const wait = (cond: () => boolean | Promise<boolean>, what: string) =>
    waitUntil(cond, what, WAIT).catch(async (e) => {
      const reps = await fleet.replicas().catch(() => []);
      throw new Error(`${(e as Error).message}\nreplicas: ${JSON.stringify(reps.map((r) => [r.model, r.state, r.message]))}\n${fleet.logs(40)}`);
    });

  beforeAll(async () => {
    buildBundles(['inventory', 'placement-scheduler', 'router', 'node-agent', 'sim-engine', 'admission']);
    await fleet.start();
    await fleet.startAdmission();
    await wait(async () => (await fleet.published()).length === 3, 'three replicas published');
    const recs = await fleet.published();
    conv = recs.filter((e) => e.model === 'conv').sort((a, b) => (a.id < b.id ? -1 : 1));
    wide = recs.find((e) => e.model === 'wide')!;
  }, 180_000);

  afterAll(() => fleet.close(), 60_000);

  it('every placed replica publishes its contract (slots, KV-event sockets, priority, auth marker) and never its secret', async () => {
    for (const e of conv) {
      expect(e).toMatchObject({
        maxNumSeqs: 8,
        schedulingPolicy: 'priority',
        auth: 'replica-key',
        kvEvents: { endpoint: expect.stringMatching(/^tcp:\/\/127\.0\.0\.1:\d+$/), replayEndpoint: expect.stringMatching(/^tcp:\/\/127\.0\.0\.1:\d+$/) },
      });
    }
    expect(wide).toMatchObject({ maxNumSeqs: 64, schedulingPolicy: 'priority', auth: 'replica-key' });
    // KV-event ports are unique per management address (both agents are 127.0.0.1).
    const ports = [...conv, wide].flatMap((e) => [new URL(e.url).port, e.kvEvents!.endpoint.split(':').pop(), e.kvEvents!.replayEndpoint!.split(':').pop()]);
    expect(new Set(ports).size).toBe(9);
    const raw = JSON.stringify(await fleet.redis.hgetall(endpointKeys(fleet.prefix).hash));
    const inventoryRaw = JSON.stringify(await fleet.redis.hgetall(`${fleet.prefix}inventory:nodes`));
    for (const e of [...conv, wide]) {
      const secret = deriveEngineSecret(fleet.engineKey, e.id);
      expect(raw).not.toContain(secret);
      expect(inventoryRaw).not.toContain(secret);
      expect(fleet.logs(10_000)).not.toContain(secret);
    }
    // What inventory's watch shows of each shard's spec carries no secret.
    for (const n of fleet.view.nodes.values()) for (const s of n.shards) expect(s.spec?.apiKey ?? '').toBe('');
    // The agent's adoption records (which hold the secret to relaunch with it) are 0600.
    for (const n of NODES) {
      const dir = join(fleet.workDir(n.id), 'shards');
      for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) expect((statSync(join(dir, f)).mode & 0o777).toString(8)).toBe('600');
    }
  });

  it('a request sent straight to a placed engine without its secret is refused (401); through the router it succeeds', async () => {
    const e = conv[0];
    const none = await engineChat(e.url, 'conv');
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ code: 'missing_api_key', message: expect.any(String) });
    expect((await engineChat(e.url, 'conv', 'a-guessed-key')).status).toBe(401);
    expect((await engineChat(e.url, 'conv', deriveEngineSecret(fleet.engineKey, e.id))).status).toBe(200);
    expect((await fetch(`${e.url}/health`)).status).toBe(200);
    const res = await fetch(`${fleet.router!.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer a-client-key', 'x-llmgw-replica': e.id },
      body: JSON.stringify({ model: 'conv', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-llmgw-replica')).toBe(e.id);
  });

  it('a platinum request reaches the engine with its priority (0), a bronze one with its own (3)', async () => {
    const e = conv[1];
    const before = await simPriorities(e.url);
    for (const band of ['platinum', 'bronze']) {
      const res = await fetch(`${fleet.router!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-llmgw-band': band, 'x-llmgw-replica': e.id },
        body: JSON.stringify({ model: 'conv', messages: [{ role: 'user', content: `a ${band} request` }], max_tokens: 2, priority: 99 }),
      });
      expect(res.status).toBe(200);
    }
    const after = await simPriorities(e.url);
    const delta = (p: string) => (after[p] ?? 0) - (before[p] ?? 0);
    expect({ '0': delta('0'), '3': delta('3'), '99': delta('99'), none: delta('none') }).toEqual({ '0': 1, '3': 1, '99': 0, none: 0 });
  });

  it("a two-turn conversation is routed by tier 2 (the placed replica's KV events) to the replica holding its blocks", async () => {
    for (const [i, start] of conv.entries()) {
      const messages: Array<{ role: string; content: string }> = [
        { role: 'user', content: `Conversation ${i}: tell me about topic number ${i * 7919 + 13}. `.repeat(6) },
      ];
      const send = (pin?: string) =>
        fetch(`${fleet.router!.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(pin ? { 'x-llmgw-replica': pin } : {}) },
          body: JSON.stringify({ model: 'conv', messages }),
        });
      // The first turn is pinned, so that staying there afterwards is the router's doing, not a tie-break.
      const first = await send(start.id);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-llmgw-replica')).toBe(start.id);
      const firstBody = (await first.json()) as { choices: Array<{ message: { content: string } }> };
      const hashes = blockHashes(llama3ChatTokens(messages), { blockSize: 16, hashSeed: '0' });
      messages.push({ role: 'assistant', content: firstBody.choices[0].message.content }, { role: 'user', content: 'And what follows from that? '.repeat(4) });
      // The engine published the blocks, and the router applied that batch.
      let seq = -1;
      await wait(
        async () => (seq = await kvStoredAt(start.kvEvents!.replayEndpoint!, hashes[hashes.length - 1])) >= 0,
        `${start.id} published the first turn's blocks`,
      );
      await wait(
        async () => (await metricValue(fleet.router!.urls.admin, 'llmgw_prefix_kv_sequence', { replica: start.id })) >= seq,
        `the router applied ${start.id}'s batch ${seq}`,
      );
      const second = await send();
      expect(second.status).toBe(200);
      const body = (await second.json()) as { usage: { prompt_tokens_details?: { cached_tokens?: number } } };
      expect({ replica: second.headers.get('x-llmgw-replica'), decision: second.headers.get('x-llmgw-cache-decision') }).toEqual({
        replica: start.id,
        decision: 'cache_hit',
      });
      expect(body.usage.prompt_tokens_details?.cached_tokens ?? 0).toBeGreaterThanOrEqual(16);
    }
  });

  it("admission grants credits from the placed replicas' declared max_num_seqs", async () => {
    const client = new AdmissionRpcClient({ addresses: [fleet.admission!.urls.grpc.replace(/^http:\/\//, '')] });
    try {
      const limits = async () => {
        const r = await client.credit('e2e-router', [
          { model: 'conv', pool: conv[0].pool, inUse: 0 },
          { model: 'wide', pool: wide.pool, inUse: 0 },
        ]);
        return Object.fromEntries(r.grants.map((g) => [g.model, g.limit]));
      };
      // What admission-core grants for these replicas with the declared slots (conv 2 × 8, wide 64), and
      // what it would grant with nothing declared and nothing learned yet (idle engines): the service's
      // credits are the former.
      const expected = (declared: boolean) => {
        const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG);
        const feed = (model: string, pool: string, reps: EndpointInfo[]) =>
          ctl.updatePool(
            pool,
            reps.map((e): ReplicaStats => ({ id: e.id, waiting: 0, running: 0, ...(declared ? { declaredCapacity: e.maxNumSeqs } : {}) })),
            model,
          );
        feed('conv', conv[0].pool, conv);
        feed('wide', wide.pool, [wide]);
        const out = { conv: ctl.credit('x', 'conv', conv[0].pool, 0, 1000).limit, wide: ctl.credit('x', 'wide', wide.pool, 0, 1000).limit };
        ctl.close();
        return out;
      };
      const declared = expected(true);
      expect(declared).not.toEqual(expected(false));
      // Admission's view of the replicas comes from their endpoint records and the engines' scrapes; until both
      // have arrived a credit can be sized from less. It must settle on the declared slots.
      let l: Record<string, number> = {};
      await wait(
        async () => {
          l = await limits();
          return l.conv === declared.conv && l.wide === declared.wide;
        },
        `credits from the declared slots ${JSON.stringify(declared)}`,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; last credits ${JSON.stringify(l)}`);
      });
      expect(l.wide).toBeGreaterThan(l.conv);
    } finally {
      client.close();
    }
  });
});
