import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Agent, createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { findRepoRoot, freePort, waitUntil } from '@llmgw/testing';

// deploy/loadbalancer/haproxy.cfg as shipped, in front of three stand-in routers (HTTP servers in
// this process that answer /readyz and take 50 ms per request): one goes down, comes back on its
// port, and the balancer ramps it in (`slowstart`) rather than sending it a full share at once.
// The routers themselves behind this file are tested in apps/router/test/load-balancer.spec.ts.
const haveHaproxy = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;
if (!haveHaproxy) console.warn('slow-start test skipped: haproxy is not installed (apt-get install -y haproxy; .ci/run installs it)');
jest.setTimeout(120_000);

const CFG = join(findRepoRoot(), 'deploy/loadbalancer/haproxy.cfg');

function standIn(port: number): Promise<Server> {
  const s = createServer((req, res) => {
    if (req.url === '/readyz') return void res.end('ready');
    setTimeout(() => res.end('ok'), 50);
  });
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

(haveHaproxy ? describe : describe.skip)('haproxy.cfg ramps a router that comes back (slowstart)', () => {
  const servers: Server[] = [];
  let lb: ChildProcess | undefined;

  afterAll(async () => {
    if (lb?.pid) {
      try {
        process.kill(-lb.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('a router back in rotation gets a small part of the requests at first, not its share', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    for (const p of ports) servers.push(await standIn(p));
    const lbPort = await freePort();
    const env: Record<string, string> = { ...(process.env as Record<string, string>), LLMGW_LB_BIND: `127.0.0.1:${lbPort}` };
    ports.forEach((p, i) => {
      env[`LLMGW_ROUTER_${i + 1}`] = `127.0.0.1:${p}`;
      env[`LLMGW_ROUTER_${i + 1}_ADMIN_PORT`] = String(p);
    });
    const log: string[] = [];
    lb = spawn('haproxy', ['-f', CFG, '-db'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    lb.stdout!.on('data', (b: Buffer) => log.push(b.toString()));
    lb.stderr!.on('data', (b: Buffer) => log.push(b.toString()));
    const said = (re: RegExp) => re.test(log.join(''));

    // Steady load through the balancer: 24 clients, one request at a time each, counted by the router that answered.
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    const answered: Array<{ who: string; at: number }> = [];
    let stop = false;
    const one = () =>
      new Promise<void>((resolve) => {
        const req = request({ host: '127.0.0.1', port: lbPort, path: '/v1/chat/completions', agent }, (res) => {
          const who = String(res.headers['x-llmgw-router'] ?? '');
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) answered.push({ who, at: performance.now() });
            resolve();
          });
        });
        req.on('error', () => setTimeout(resolve, 20));
        req.end();
      });
    const clients = Array.from({ length: 24 }, async () => {
      while (!stop) await one();
    });
    try {
      await waitUntil(
        () => new Set(answered.map((a) => a.who)).size === 3,
        () => `answers from all three routers (haproxy: ${log.join('').slice(-600)})`,
        {
          timeoutMs: 30_000,
        },
      );

      // router1 goes away: the checks take it out of rotation.
      const [first] = servers.splice(0, 1);
      first.closeAllConnections();
      await new Promise((r) => first.close(r));
      await waitUntil(
        () => said(/router1 is DOWN/),
        () => `haproxy marking router1 down (${log.join('').slice(-600)})`,
        { timeoutMs: 30_000 },
      );

      // It comes back on its port; from the moment haproxy says it is up, count who answers.
      servers.unshift(await standIn(ports[0]));
      await waitUntil(
        () => said(/router1 is UP/),
        () => `haproxy marking router1 up again (${log.join('').slice(-600)})`,
        { timeoutMs: 30_000 },
      );
      // The first 1.5 s after it is up (the ramp's first 15 %), at least 30 answers in it.
      const from = performance.now();
      const early = () => answered.filter((a) => a.at >= from && a.at < from + 1_500);
      await waitUntil(() => performance.now() - from > 1_500 && early().length >= 30, 'answers in the 1.5 s after router1 came back', { timeoutMs: 30_000 });
      const mine = early().filter((a) => a.who === 'router1').length;
      // A third would be its share, and least-connections alone gives a server with no connections
      // more than that; with `slowstart 10s` its weight starts near zero and grows over ten seconds.
      expect(mine / early().length).toBeLessThan(0.2);
      // It does take requests again (the ramp has started, it is not out of rotation).
      await waitUntil(() => answered.some((a) => a.at >= from && a.who === 'router1'), 'an answer from router1 after it came back', { timeoutMs: 30_000 });
    } finally {
      stop = true;
      await Promise.all(clients);
      agent.destroy();
    }
  });
});
