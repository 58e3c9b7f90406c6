import { AdmissionController, DEFAULT_ADMISSION_CONFIG, type AcquireResult, type AdmissionRequest } from '@llmgw/admission-core';
import { createServer, listen, shutdown } from '@llmgw/grpc';
import { AdmissionRpcClient } from './client';
import { CreditBook } from './credits';
import { admissionServiceDefinition } from './proto';
import { RemoteAdmission } from './remote';
import { AdmissionRpcService } from './server';
import { waitUntil } from '@llmgw/contracts/wait';

const until = (cond: () => boolean) => waitUntil(cond, 'the credit state to change');

/** Credit renewal rounds each router has had answered. */
const creditRounds = new WeakMap<RemoteAdmission, { n: number }>();

/** Pool "p": two replicas of 8 slots, capacity confirmed, idle — the lowest band may borrow 14. */
function controller() {
  const ctl = new AdmissionController(DEFAULT_ADMISSION_CONFIG);
  const full = [
    { id: 'a', waiting: 2, running: 8 },
    { id: 'b', waiting: 2, running: 8 },
  ];
  ctl.updatePool('p', full);
  ctl.updatePool('p', full);
  ctl.updatePool('p', full);
  ctl.updatePool('p', [
    { id: 'a', waiting: 0, running: 0 },
    { id: 'b', waiting: 0, running: 0 },
  ]);
  return ctl;
}

const req = (band: string, over: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  requestId: 'r',
  band,
  tenant: 't',
  model: 'm',
  candidatePools: ['p'],
  estimatedTokens: 10,
  ...over,
});

describe('credits over gRPC', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function serve(ctl: () => AdmissionController | undefined, fencing: () => number = () => 1, creditMax?: number) {
    // A long credit TTL: a credit is usable for half of it, and a loaded machine's stall must not expire one these
    // tests expect usable (expiry on time is CreditBook's own test, below, on an injected clock).
    const svc = new AdmissionRpcService({ controller: ctl, instanceId: 'i', fencingToken: fencing, routerTtlMs: 60_000, creditTtlMs: 60_000, creditMax });
    const server = createServer();
    server.addService(admissionServiceDefinition(), svc.implementation());
    const port = await listen(server, '127.0.0.1', 0);
    cleanups.push(() => shutdown(server, 200));
    return `127.0.0.1:${port}`;
  }

  function router(address: string, id: string, creditIntervalMs = 50) {
    // Not short: a renewal past its deadline on a stalled event loop revokes the credit, a KeepAlive's flips to the fallback.
    const client = new AdmissionRpcClient({ addresses: [address], callTimeoutMs: 5_000 });
    const local = new AdmissionController(DEFAULT_ADMISSION_CONFIG);
    const rounds = { n: 0 };
    const credit = client.credit.bind(client);
    client.credit = async (...args) => {
      const res = await credit(...args);
      rounds.n++;
      return res;
    };
    const r = new RemoteAdmission({ client, local, routerId: id, queueTtlMs: 5000, keepaliveIntervalMs: 60_000, creditIntervalMs });
    creditRounds.set(r, rounds);
    r.start();
    cleanups.push(() => r.close());
    return r;
  }

  it('admits on credit with no Acquire while far below every ceiling; the service counts the credit', async () => {
    const ctl = controller();
    const a = router(await serve(() => ctl), 'A');
    // The first request for a pool asks (and makes the router ask for credit).
    const first = await a.acquire(req('bronze'));
    expect(first).toMatchObject({ kind: 'granted', pool: 'p' });
    expect(ctl.outstandingLeases()).toBe(1);
    await until(() => (a.credits?.state('m', 'p')?.limit ?? 0) > 0);
    // (14 − 1 outstanding) / 2 = 6
    expect(a.credits?.state('m', 'p')).toMatchObject({ limit: 6, inUse: 0, usable: true });
    expect(ctl.creditReserved('p', 'm')).toBe(6);
    const onCredit: AcquireResult[] = [];
    for (let i = 0; i < 6; i++) onCredit.push(await a.acquire(req('platinum')));
    expect(onCredit.every((g) => g.kind === 'granted' && g.lease.id.startsWith('credit-'))).toBe(true);
    expect(ctl.outstandingLeases()).toBe(1); // no Acquire reached the service
    // credit used up: the seventh asks
    const seventh = await a.acquire(req('platinum'));
    expect(seventh.kind === 'granted' && !seventh.lease.id.startsWith('credit-')).toBe(true);
    expect(ctl.outstandingLeases()).toBe(2);
    for (const g of onCredit) if (g.kind === 'granted') g.lease.release();
    expect(a.credits?.state('m', 'p')?.inUse).toBe(0);
  });

  it('shrinks the credit to 0 while a request is queued, so the queue decides', async () => {
    const ctl = controller();
    const a = router(await serve(() => ctl), 'A');
    await a.acquire(req('bronze'));
    await until(() => (a.credits?.state('m', 'p')?.limit ?? 0) > 0);
    // fill the pool past the lowest band's reach through the exact path and queue one
    const held: Array<Promise<AcquireResult>> = [];
    for (let i = 0; i < 8; i++) held.push(ctl.acquire(req('bronze', { requestId: `x${i}` })));
    await until(() => ctl.queued() > 0);
    await until(() => a.credits?.state('m', 'p')?.limit === 0);
    const r = await Promise.race([a.acquire(req('platinum')), new Promise<'waiting'>((res) => setTimeout(() => res('waiting'), 200))]);
    expect(r === 'waiting' || (r.kind === 'granted' && !r.lease.id.startsWith('credit-'))).toBe(true);
    ctl.close();
    await Promise.all(held);
  });

  it('revokes the credit when the leader changes (another fencing token) or the service stops serving', async () => {
    const ctl = controller();
    let current: AdmissionController | undefined = ctl;
    let token = 1;
    const a = router(
      await serve(
        () => current,
        () => token,
      ),
      'A',
    );
    await a.acquire(req('bronze'));
    await until(() => (a.credits?.state('m', 'p')?.limit ?? 0) > 0);
    expect((await a.acquire(req('gold'))).kind).toBe('granted'); // one on credit, in use
    // a new leader: fresh controller, new token; it hears of the request in use and reserves it
    const next = controller();
    current = next;
    token = 2;
    await until(() => next.creditReserved('p', 'm') >= 1);
    expect(a.credits?.state('m', 'p')?.inUse).toBe(1);
    // standby: renewals fail, the credit is revoked at once (limit 0: what a failed renewal does, not time running out)
    current = undefined;
    await until(() => a.credits?.state('m', 'p')?.limit === 0);
    expect(a.credits?.state('m', 'p')?.usable).toBe(false);
  });

  it('credit_max 0 turns credits off', async () => {
    const ctl = controller();
    const a = router(
      await serve(
        () => ctl,
        () => 1,
        0,
      ),
      'A',
    );
    await a.acquire(req('bronze'));
    const answered = creditRounds.get(a)!.n;
    await until(() => creditRounds.get(a)!.n >= answered + 3); // three renewals answered, none with credit
    expect(a.credits?.state('m', 'p')?.limit).toBe(0);
    expect(ctl.creditReserved('p', 'm')).toBe(0);
  });
});

describe('CreditBook', () => {
  it('renews sooner once three quarters of a credit are in use, so a growing demand is heard before it runs out', async () => {
    jest.useFakeTimers({ now: 0 });
    try {
      const sent: number[][] = [];
      const book = new CreditBook({
        renew: async (uses) => {
          sent.push(uses.map((u) => u.inUse));
          return { grants: uses.map((u) => ({ ...u, limit: 8 })), ttlMs: 10_000, fencingToken: 1 };
        },
        intervalMs: 1000,
        soonMs: 50,
        now: () => Date.now(),
      });
      book.start();
      expect(book.take('m', 'p')).toBe(false); // first sight
      await jest.advanceTimersByTimeAsync(1);
      expect(sent).toEqual([[0]]);
      for (let i = 0; i < 5; i++) expect(book.take('m', 'p')).toBe(true);
      await jest.advanceTimersByTimeAsync(100);
      expect(sent).toHaveLength(1); // 5 of 8: the regular interval
      expect(book.take('m', 'p')).toBe(true); // 6 of 8
      await jest.advanceTimersByTimeAsync(1);
      expect(sent).toEqual([[0], [6]]); // 50 ms after the previous one had passed: at once
      book.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('stops using a credit half-way through its TTL without a renewal', async () => {
    let t = 0;
    let answer = true;
    const book = new CreditBook({
      renew: async (uses) => {
        if (!answer) throw new Error('down');
        return { grants: uses.map((u) => ({ ...u, limit: 2 })), ttlMs: 1000, fencingToken: 7 };
      },
      intervalMs: 1_000_000,
      now: () => t,
    });
    expect(book.take('m', 'p')).toBe(false); // first sight
    await book.renewNow();
    expect(book.take('m', 'p')).toBe(true);
    t = 499;
    expect(book.take('m', 'p')).toBe(true);
    expect(book.take('m', 'p')).toBe(false); // limit 2 in use
    book.put('m', 'p');
    t = 501;
    expect(book.take('m', 'p')).toBe(false); // past ttl / 2
    answer = false;
    await book.renewNow();
    expect(book.state('m', 'p')).toMatchObject({ limit: 0, inUse: 1, usable: false });
    book.close();
  });
});
