import OpenAI from 'openai';
import { spawnRole, type SpawnedRole } from '@llmgw/testing';
import { start, type RunningRouter } from '../src/main';
import { silentLog } from './helpers';

/**
 * Tier-0 session affinity by default (docs/scheduling.md#routing-profiles): a real router with no
 * profile configured (the built-in `chat`) in front of four real sim-engines. A client that sends
 * `x-session-id`, or OpenAI's `user` field, stays on one replica whatever its prompts are.
 */
describe('session affinity under the built-in chat profile', () => {
  let engines: SpawnedRole[] = [];
  let router: RunningRouter;
  let client: OpenAI;

  beforeAll(async () => {
    engines = await Promise.all(
      [0, 1, 2, 3].map(() =>
        spawnRole('sim-engine', ['--port', '0', '--model', 'llama', '--decode-tps', '0', '--log-level', 'warn', '--max-tokens-default', '4']),
      ),
    );
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        scrape_interval: 200,
        models: [{ name: 'llama' }],
        endpoints: engines.map((e, i) => ({ name: `e${i}`, url: e.url, model: 'llama' })),
      },
    });
    client = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  }, 180_000);

  afterAll(async () => {
    await router?.close();
    await Promise.all(engines.map((e) => e.stop()));
  });

  /** A prompt long enough for the prefix tree to key (several 64-character chunks), different for every tag. */
  const prompt = (tag: string): string => `${tag}: ${'Please think about this question carefully and answer briefly. '.repeat(4)}`;

  const send = async (content: string, opts: { session?: string; user?: string }): Promise<{ replica: string | null; decision: string | null }> => {
    const { response } = await client.chat.completions
      .create(
        { model: 'llama', messages: [{ role: 'user', content }], max_tokens: 4, ...(opts.user ? { user: opts.user } : {}) },
        opts.session ? { headers: { 'x-session-id': opts.session } } : {},
      )
      .withResponse();
    return { replica: response.headers.get('x-llmgw-replica'), decision: response.headers.get('x-llmgw-cache-decision') };
  };

  it('ten requests with one x-session-id and different prompts land on one replica, each a session_hit', async () => {
    const got: Array<{ replica: string | null; decision: string | null }> = [];
    for (let i = 0; i < 10; i++) got.push(await send(prompt(`question ${i} of session one`), { session: 'agent-run-1' }));
    expect(new Set(got.map((g) => g.replica)).size).toBe(1);
    expect(got.map((g) => g.decision)).toEqual(Array(10).fill('session_hit'));
  }, 60_000);

  it("OpenAI's user field is a session key too; the header wins over it", async () => {
    const byUser: Array<string | null> = [];
    for (let i = 0; i < 8; i++) byUser.push((await send(prompt(`user turn ${i}`), { user: 'end-user-7' })).replica);
    expect(new Set(byUser).size).toBe(1);
    const header = await send(prompt('header one'), { session: 'agent-run-1' });
    const both = await send(prompt('header and user'), { session: 'agent-run-1', user: 'end-user-7' });
    expect(both.replica).toBe(header.replica);
  }, 60_000);

  it('different sessions spread over the replicas; a prompt sent again without a session returns by prefix', async () => {
    const replicas = new Set<string | null>();
    for (let k = 0; k < 24; k++) replicas.add((await send(prompt(`first question of session ${k}`), { session: `sess-${k}` })).replica);
    expect(replicas.size).toBeGreaterThanOrEqual(3);
    const first = await send(prompt('a conversation without a session id'), {});
    const again = await send(`${prompt('a conversation without a session id')} And a follow-up question about it, longer than a chunk.`, {});
    expect(again).toEqual({ replica: first.replica, decision: 'cache_hit' });
  }, 60_000);
});
