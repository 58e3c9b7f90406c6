import { Redis } from 'ioredis';
import { fleetKeyPrefix, STOP_DEADLINE_MS } from '../src/main';
import { ok, UpProcess } from './spawn-up';

// `llmgw up --redis-url`: the same control plane, its shared state in Redis (as a scaled deployment
// keeps it): the placement-scheduler publishes the placed replicas' endpoint records there under this
// data dir's prefix, routers read them there, the catalog view and demand go through it.
const up = new UpProcess();
const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
let routerUrl: string;

beforeAll(() => up.start('--redis-url', 'redis://127.0.0.1:6379', '--no-auth', '--engines', '1'));

afterAll(async () => {
  up.cleanup();
  const keys = await redis.keys(`${fleetKeyPrefix(up.dataDir)}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const chat = (model: string) =>
  fetch(`${routerUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 4 }),
  });

describe('llmgw up --redis-url', () => {
  it('places the demo model and serves it from the replica whose endpoint record it published in Redis', async () => {
    await up.match(/llmgw is up/, 150_000);
    routerUrl = (await up.match(/router 1\s+(http:\/\/\S+)\/v1/, 1_000))[1];
    expect(up.output).toMatch(/placement\s+\S+ \(ControlService, mTLS\).*shared state Redis/);
    const published = await redis.hgetall(`${fleetKeyPrefix(up.dataDir)}endpoints`);
    expect(Object.keys(published)).toEqual([expect.stringMatching(/^demo-/)]);
    const res = await chat('demo');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-llmgw-replica')).toBe(Object.keys(published)[0]);
    expect(((await res.json()) as { model: string }).model).toBe('demo');
    expect(ok(up.ctl('nodes'))).toMatch(/up-gpu-a[\s\S]*fab-a[\s\S]*up-gpu-b[\s\S]*fab-b/);
    expect(ok(up.ctl('replicas'))).toMatch(/demo\s.*ready/);
    expect(ok(up.ctl('explain-placement', 'demo-lazy'))).toContain('demo-lazy');
  }, 180_000);

  it('loads the on-demand model when asked: 503 model_loading while it loads, then it serves', async () => {
    await up.onDemandLoads((model) => chat(model), 'demo-lazy');
  }, 90_000);

  it('SIGINT stops everything, the engine processes too, with status 0', async () => {
    expect(up.engineRecords().length).toBe(2);
    expect(await up.interrupt(STOP_DEADLINE_MS + 25_000)).toEqual({ code: 0, signal: null });
    expect(up.output).toMatch(/SIGINT: stopping…\nstopped\n/);
    expect(up.engineRecords()).toEqual([]);
  }, 60_000);
});
