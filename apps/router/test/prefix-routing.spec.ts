import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { decode } from '@msgpack/msgpack';
import { blockHashes, llama3ChatTokens, llama3TextTokens } from '@llmgw/prefix';
import { spawnRole, type SpawnedRole, waitUntil } from '@llmgw/testing';
import { metricValue } from './helpers';

/**
 * The CI-size proof of prefix-aware routing on real processes: two
 * sim-engines publishing KV events (Llama 3 tokens, vLLM block hashes), two
 * routers subscribed to both and sharing their trees over Redis, and
 * conversations whose turns alternate between the routers. Every turn after
 * the first must land on the replica holding the conversation, and the
 * engine must report the previous turn's prompt as cached. No profile is
 * configured: the built-in `chat` profile routes by prefix.
 *
 * Then the same with the routers' Redis down (ARCHITECTURE: Redis lost →
 * single-router behaviour): the trees are no longer shared, but each router
 * hears the engines' KV events itself, so the precise index still follows
 * every conversation across routers.
 */
const HASH_SEED = '7';
const kvAddr = (r: SpawnedRole): { endpoint: string; replay_endpoint: string } => {
  for (const l of r.output()) {
    if (!l.startsWith('{')) continue;
    const rec = JSON.parse(l);
    if (rec.msg === 'listening') return rec.kv_events;
  }
  throw new Error('no listening line with kv_events');
};

/** Asks an engine's replay socket for everything it buffered; returns [seq, stored hashes] per batch. */
async function replayAll(endpoint: string): Promise<Array<[number, bigint[]]>> {
  // receiveTimeout is armed against libuv's cached loop time, stale after the tokenizer's first (synchronous) use.
  await new Promise((r) => setTimeout(r, 0));
  const d = new zmq.Dealer({ receiveTimeout: 10_000, linger: 0 });
  try {
    d.connect(endpoint);
    await d.send([Buffer.alloc(0), Buffer.alloc(8)]);
    const out: Array<[number, bigint[]]> = [];
    for (;;) {
      const [, , seq, payload] = await d.receive();
      const s = seq.readBigUInt64BE(0);
      if (s === 0xffffffffffffffffn) return out;
      const [, events] = decode(payload, { useBigInt64: true }) as [number, Array<{ type: string; block_hashes?: bigint[] }>];
      out.push([Number(s), events.filter((e) => e.type === 'BlockStored').flatMap((e) => e.block_hashes!)]);
    }
  } finally {
    d.close();
  }
}

describe('prefix-aware routing across two routers and two KV-publishing sim-engines', () => {
  const procs: SpawnedRole[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('a conversation alternating routers hits the cache on every turn after the first', async () => {
    await conversationsAcrossRouters('redis://127.0.0.1:6379', true);
  }, 600_000);

  it("with the routers' Redis down (no tree share) the KV index still keeps every turn on its replica", async () => {
    // Nothing listens on port 1: every tree insert stays in the router that made it.
    await conversationsAcrossRouters('redis://127.0.0.1:1', false);
  }, 600_000);

  async function conversationsAcrossRouters(shareUrl: string, shared: boolean): Promise<void> {
    const engineArgs = [
      '--port',
      '0',
      '--model',
      'llama',
      '--tokenizer',
      'llama3',
      '--hash-seed',
      HASH_SEED,
      '--prefill-tps',
      '0',
      '--decode-tps',
      '0',
      '--max-tokens-default',
      '8',
      '--num-gpu-blocks',
      '2048',
      '--prefix-cache-blocks',
      '512',
      '--log-level',
      'warn',
      '--kv-events-config',
      JSON.stringify({ enable_kv_cache_events: true, endpoint: 'tcp://127.0.0.1:0', replay_endpoint: 'tcp://127.0.0.1:0' }),
    ];
    const engines = await Promise.all([
      spawnRole('sim-engine', engineArgs, { timeoutMs: 120_000 }),
      spawnRole('sim-engine', engineArgs, { timeoutMs: 120_000 }),
    ]);
    procs.push(...engines);
    const kv = engines.map(kvAddr);

    const dir = mkdtempSync(join(tmpdir(), 'llmgw-prefix-'));
    dirs.push(dir);
    const config = join(dir, 'router.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        scrape_interval: '500ms',
        log_level: 'warn',
        prefix: {
          approx_tree: { share: { redis_url: shareUrl, key_prefix: `test:${randomUUID()}:` } },
          // The test is about the index, not the bound on keying: a loaded machine must not time it out.
          kv_events: { enabled: true, hash_seed: HASH_SEED, tokenize_timeout: '60s' },
        },
        endpoints: engines.map((e, i) => ({ name: `e${i}`, url: e.url, model: 'llama', kv_events: kv[i] })),
      }),
    );
    const routers = await Promise.all([0, 1].map(() => spawnRole('router', ['--config', config, '--port', '0', '--admin-port', '0'], { timeoutMs: 120_000 })));
    procs.push(...routers);
    // The routers listen while their tokenizer workers load (tier 1 keys meanwhile): wait for them.
    for (const r of routers)
      await waitUntil(async () => (await metricValue(r.urls.admin, 'llmgw_prefix_tokenize_workers_ready', {})) >= 1, 'tokenizer worker ready', {
        timeoutMs: 120_000,
        everyMs: 100,
      });

    /** Waits until both routers have applied the batch in which `replica` stored the block `hash`. */
    const waitApplied = async (replica: string, hash: bigint): Promise<void> => {
      const e = Number(replica.slice(1));
      let seq = -1;
      await waitUntil(
        async () => {
          seq = (await replayAll(kv[e].replay_endpoint)).find(([, hs]) => hs.includes(hash))?.[0] ?? -1;
          return seq >= 0;
        },
        '{ seq = (await replayAll(kv[e].replay_endpoint)).find(([, hs]) => hs.includes(hash))?.[...',
        { timeoutMs: 20_000, everyMs: 50 },
      );
      for (const r of routers)
        await waitUntil(
          async () => (await metricValue(r.urls.admin, 'llmgw_prefix_kv_sequence', { replica })) >= seq,
          "(await metricValue(r.urls.admin, 'llmgw_prefix_kv_sequence', { replica })) >= seq",
          { timeoutMs: 20_000, everyMs: 50 },
        );
    };
    const completeIds = async (
      url: string,
      prompt: number[],
      headers: Record<string, string>,
    ): Promise<{ replica: string; decision: string | null; cached: number }> => {
      const res = await fetch(`${url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'llama', prompt, max_tokens: 8 }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      return {
        replica: res.headers.get('x-llmgw-replica')!,
        decision: res.headers.get('x-llmgw-cache-decision'),
        cached: body.usage.prompt_tokens_details?.cached_tokens ?? 0,
      };
    };

    const conversations = [0, 1, 2].map((c) => [{ role: 'user', content: `Conversation ${c}: tell me about topic number ${c * 7919}. `.repeat(6) }]);
    const lastReplica: string[] = [];
    const lastPromptTokens: number[] = [];
    for (let turn = 0; turn < 4; turn++) {
      for (const [c, messages] of conversations.entries()) {
        const router = routers[(turn + c) % 2];
        const res = await fetch(`${router.url}/v1/chat/completions`, {
          method: 'POST',
          // The first turn is pinned so that the conversations start on different replicas: staying
          // there afterwards is then the router's doing, not a tie-break.
          headers: { 'content-type': 'application/json', ...(turn === 0 ? { 'x-llmgw-replica': `e${c % 2}` } : {}) },
          body: JSON.stringify({ model: 'llama', messages }),
        });
        expect(res.status).toBe(200);
        const body = (await res.json()) as any;
        const replica = res.headers.get('x-llmgw-replica')!;
        const cached = body.usage.prompt_tokens_details.cached_tokens as number;
        if (turn > 0) {
          expect({ conversation: c, turn, replica, decision: res.headers.get('x-llmgw-cache-decision') }).toEqual({
            conversation: c,
            turn,
            replica: lastReplica[c],
            decision: 'cache_hit',
          });
          // Everything of the previous prompt but its last partial block is served from the cache.
          expect(cached).toBeGreaterThanOrEqual(Math.floor((lastPromptTokens[c] - 1) / 16) * 16 - 16);
        }
        if (turn === 0) expect(replica).toBe(`e${c % 2}`);
        lastReplica[c] = replica;
        lastPromptTokens[c] = body.usage.prompt_tokens;
        messages.push(
          { role: 'assistant', content: body.choices[0].message.content },
          { role: 'user', content: `Turn ${turn + 1}: and what follows from that? `.repeat(4) },
        );

        // A user reads before replying: wait until both routers have applied the batch that stored this prompt's blocks.
        const hashes = blockHashes(llama3ChatTokens(messages.slice(0, -2)), { blockSize: 16, hashSeed: HASH_SEED });
        await waitApplied(replica, hashes[hashes.length - 1]);
      }
    }
    // A completion sent as token ids (as RL rollout clients do) is hashed without the tokenizer; the
    // router's hashes must equal the engine's for its next, longer prompt to find the replica.
    const ids = llama3TextTokens('A prompt sent as token ids by a client that tokenizes for itself. '.repeat(8));
    const first = await completeIds(routers[0].url, ids, { 'x-llmgw-replica': 'e1' });
    expect(first.replica).toBe('e1');
    const hashes = blockHashes(ids, { blockSize: 16, hashSeed: HASH_SEED });
    await waitApplied('e1', hashes[hashes.length - 1]);
    const next = await completeIds(routers[1].url, [...ids, ...llama3TextTokens(' And then?').slice(1)], {});
    expect({ replica: next.replica, decision: next.decision }).toEqual({ replica: 'e1', decision: 'cache_hit' });
    expect(next.cached).toBeGreaterThanOrEqual(Math.floor((ids.length - 1) / 16) * 16);

    // Both routers took decisions, and each counted cache hits.
    for (const r of routers) expect(await metricValue(r.urls.admin, 'llmgw_prefix_decisions_total', { decision: 'cache_hit' })).toBeGreaterThan(0);
    // The trees were shared, or (Redis down) every insert stayed where it was made.
    for (const r of routers) {
      const received = await metricValue(r.urls.admin, 'llmgw_prefix_share_messages_total', { direction: 'received' });
      const dropped = await metricValue(r.urls.admin, 'llmgw_prefix_share_messages_total', { direction: 'dropped' });
      if (shared) expect(received).toBeGreaterThan(0);
      else expect({ received, dropped: dropped > 0 }).toEqual({ received: 0, dropped: true });
      // The load share on the same connections: each router heard the other's in-flight counts.
      const load = await metricValue(r.urls.admin, 'llmgw_prefix_load_share_messages_total', { direction: shared ? 'received' : 'dropped' });
      expect(load).toBeGreaterThan(0);
      // Every worker answered in time: no request of the test was keyed for tier 1 only.
      for (const reason of ['loading', 'saturated', 'timeout', 'error'])
        expect({ reason, n: await metricValue(r.urls.admin, 'llmgw_prefix_tokenize_fallbacks_total', { reason }) }).toEqual({ reason, n: 0 });
      expect(await metricValue(r.urls.admin, 'llmgw_prefix_tokenize_spans_total', { result: 'hit' })).toBeGreaterThan(0);
    }
  }
});
