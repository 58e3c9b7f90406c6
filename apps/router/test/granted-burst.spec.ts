import type { AcquireResult, AdmissionRequest } from '@llmgw/admission-core';
import { start, type RunningRouter } from '../src/main';
import { chatJson, fakeUpstream, silentLog, type FakeUpstream } from './helpers';
import { waitUntil } from '@llmgw/testing';

// Admission often grants a whole burst at once (one release or stats update
// lets many queued requests go). Each granted request must be scheduled on
// the inflight counts as they are *after* the requests granted before it were
// dispatched, or the whole burst lands on one replica.
const held: Array<() => void> = [];
jest.mock('../src/admission', () => ({
  createAdmission: () => ({
    mode: 'local',
    degraded: false,
    acquire: (_req: AdmissionRequest): Promise<AcquireResult> =>
      new Promise((resolve) => held.push(() => resolve({ kind: 'granted', pool: 'p', queuedMs: 1, lease: { id: 'l', pool: 'p', release: () => undefined } }))),
  }),
}));

describe('a burst of grants', () => {
  const ups: FakeUpstream[] = [];
  let router: RunningRouter;
  let answer: () => void = () => undefined;

  beforeAll(async () => {
    const gate = new Promise<void>((r) => (answer = r));
    for (let i = 0; i < 2; i++) {
      ups.push(
        await fakeUpstream((_req, res) => {
          void gate.then(() => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(chatJson());
          });
        }),
      );
    }
    router = await start({
      log: silentLog(),
      config: {
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        admission: { mode: 'local' },
        default_profile: 'chat',
        models: [{ name: 'm' }],
        endpoints: ups.map((u, i) => ({ name: `r${i}`, url: u.url, model: 'm', pool: 'p' })),
      },
    });
  });
  afterAll(async () => {
    answer();
    await router.close();
    await Promise.all(ups.map((u) => u.close()));
  });

  it('is spread across replicas, not herded onto one', async () => {
    // Both replicas scraped, so they differ in nothing but what this burst does to them.
    const fresh = async (replica: string) =>
      (await fetch(`${router.adminUrl}/metrics`).then((r) => r.text()))
        .split('\n')
        .some((l) => l.startsWith('llmgw_endpoint_metrics_stale{') && l.includes(`replica="${replica}"`) && l.endsWith(' 0'));
    await waitUntil(async () => (await fresh('r0')) && (await fresh('r1')), "(await fresh('r0')) && (await fresh('r1'))", { timeoutMs: 10_000, everyMs: 50 });
    const N = 12;
    const responses = Array.from({ length: N }, () =>
      fetch(`${router.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
      }),
    );
    await waitUntil(() => held.length === N, 'held.length === N', { everyMs: 25 });
    for (const grant of held.splice(0)) grant();
    await waitUntil(() => ups[0].hits.length + ups[1].hits.length === N, 'ups[0].hits.length + ups[1].hits.length === N', { everyMs: 25 });
    answer();
    const replicas = await Promise.all(responses.map(async (r) => (await r).headers.get('x-llmgw-replica')));
    const counts = [ups[0].hits.length, ups[1].hits.length];
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(N / 2 - 1);
    expect(new Set(replicas)).toEqual(new Set(['r0', 'r1']));
  });
});
