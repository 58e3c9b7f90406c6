/**
 * Bad input through the placement-scheduler on real processes (inventory,
 * scheduler, admission, one node-agent on fake GPUs): a 100 KB id in
 * ControlService calls is refused at once with INVALID_ARGUMENT naming the
 * field and a bounded message, the scheduler's connection to inventory and
 * its fleet watch keep working (a scale-up is placed, a forwarded Logs call
 * answers), and admission refuses an Acquire for a model nobody serves
 * instead of queueing it (docs/placement.md, docs/admission.md).
 */
import { AdmissionRpcClient } from '@llmgw/admission-rpc';
import { ControlClient } from '@llmgw/control-rpc';
import { fromGrpcError } from '@llmgw/grpc';
import { waitUntil } from '@llmgw/testing';
import { buildBundles, E2E_WAIT as WAIT, simProfile, TestFleet } from './fleet';

jest.setTimeout(120_000);

const CATALOG = { models: [{ name: 'chat', source: 'sim/chat', scaling: { min: 1, max: 2 }, profiles: [simProfile('one-gpu')] }] };
const NODES = [{ id: 'b1', fakeGpus: '2xh100-80g,fabric=fab-a' }];
const addr = (url: string) => url.replace(/^http:\/\//, '');

async function drain<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('bad input through the placement-scheduler (real processes)', () => {
  const fleet = new TestFleet(CATALOG, NODES);
  let ctl: ControlClient;

  beforeAll(async () => {
    buildBundles(['inventory', 'placement-scheduler', 'node-agent', 'sim-engine', 'admission']);
    await fleet.start({ router: false });
    await fleet.startAdmission();
    ctl = new ControlClient({ address: addr(fleet.scheduler!.urls.control) });
    await waitUntil(async () => (await fleet.ready('chat')).length === 1, 'chat ready', WAIT);
  }, 180_000);

  afterAll(async () => {
    ctl?.close();
    await fleet.close();
  }, 60_000);

  it('refuses 100 KB ids in Logs and node verbs with INVALID_ARGUMENT naming the field; the fleet watch and the relay to inventory keep working', async () => {
    const big = 'n'.repeat(100_000);
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['nodeId', () => drain(ctl.logs({ nodeId: big, source: 'LOG_SOURCE_AGENT' }, { deadlineMs: 10_000 }))],
      ['shardId', () => drain(ctl.logs({ nodeId: 'b1', source: 'LOG_SOURCE_SHARD', shardId: big }, { deadlineMs: 10_000 }))],
      ['replicaId', () => drain(ctl.logs({ nodeId: 'b1', source: 'LOG_SOURCE_SHARD', replicaId: big }, { deadlineMs: 10_000 }))],
      ['nodeId', () => ctl.getNode(big, { deadlineMs: 10_000 })],
      ['nodeId', () => ctl.cordon(big, 'r', { deadlineMs: 10_000 })],
      ['reason', () => ctl.cordon('b1', 'r'.repeat(100_000), { deadlineMs: 10_000 })],
      ['model', () => ctl.unary('ExplainPlacement', { model: big }, { deadlineMs: 10_000 })],
      ['source', () => drain(ctl.logs({ nodeId: 'b1', source: 9 as never }, { deadlineMs: 10_000 }))],
    ];
    for (const [field, call] of cases) {
      const e = fromGrpcError(
        await call().then(
          () => undefined,
          (x) => x,
        ),
      );
      expect([field, e.code, e.message.slice(0, 300)]).toEqual([
        field,
        'LLMGW_ERR_INVALID_ARGUMENT',
        expect.stringMatching(new RegExp(`${field}|${field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`)),
      ]);
      expect(e.message.length).toBeLessThan(1200);
      expect(e.message).not.toMatch(/\/[\w.-]+\/[\w.-]+\.(ts|js)|at \w+ \(/);
    }
    // The scheduler's connection to inventory: a forwarded Logs call and a node verb answer.
    const chunks = await drain(ctl.logs({ nodeId: 'b1', source: 'LOG_SOURCE_AGENT', tailLines: 5 }, { deadlineMs: 20_000 }));
    expect(chunks.at(-1)?.eof).toBe(true);
    expect((await ctl.getNode('b1')).state).toBe('NODE_STATE_READY');
    // Its fleet watch: a scale-up is placed and becomes ready.
    await ctl.unary('SetModelTarget', { model: 'chat', minReplicas: 2, maxReplicas: 2 });
    await waitUntil(async () => (await fleet.ready('chat')).length === 2, 'the scale-up ready', WAIT);
  });

  it('admission refuses an Acquire for a model or pool nobody serves with NOT_FOUND, and grants one that is served', async () => {
    const client = new AdmissionRpcClient({ addresses: [addr(fleet.admission!.urls.grpc)], callTimeoutMs: 30_000 });
    try {
      const pool = (await fleet.published()).find((e) => e.model === 'chat')!.pool;
      const base = {
        requestId: 'x',
        band: 'bronze',
        tenant: 't',
        model: 'chat',
        candidatePools: [pool],
        estimatedTokens: 1,
        deadlineUnixMs: Date.now() + 60_000,
        routerId: 'r1',
      };
      const ok = await client.acquire(base, 30_000);
      expect(ok.granted?.pool).toBe(pool);
      await client.release({ leaseId: ok.granted!.leaseId, routerId: 'r1', status: 200, promptTokens: 1, completionTokens: 1 });
      for (const over of [{ model: 'nobody' }, { candidatePools: ['no-such-pool'] }]) {
        const e = await client.acquire({ ...base, ...over }, 30_000).then(
          () => undefined,
          (x) => x,
        );
        expect(e).toMatchObject({ code: 'LLMGW_ERR_NOT_FOUND', message: expect.stringContaining('no endpoint serves model') });
      }
    } finally {
      client.close();
    }
  });
});
