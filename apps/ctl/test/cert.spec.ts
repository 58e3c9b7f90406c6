import { agentConnectHandler, agentServiceClient, agentServiceDefinition } from '@llmgw/agent-rpc';
import { createServer, fromGrpcError, listen, makeClient, shutdown } from '@llmgw/grpc';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/main';

async function ctl(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } }, { actor: 'tester@ci' });
  return { code, out, err, json: () => JSON.parse(out) };
}

describe('llmgw ctl cert', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-ctl-cert-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const mode = (p: string) => statSync(p).mode & 0o777;

  it('init-ca, issue-server, issue-node, issue-client: keys 0600, names and usages as asked, signed by the CA', async () => {
    const ca = await ctl('cert', 'init-ca', '--dir', join(dir, 'ca'), '--json');
    expect(ca.code).toBe(0);
    expect(ca.json()).toMatchObject({ commonName: 'llmgw-ca', usage: 'ca', cert: join(dir, 'ca', 'ca.crt'), key: join(dir, 'ca', 'ca.key') });
    expect(mode(join(dir, 'ca', 'ca.key'))).toBe(0o600);
    const caCert = new X509Certificate(readFileSync(join(dir, 'ca', 'ca.crt')));
    expect(caCert.ca).toBe(true);

    const srv = await ctl(
      'cert',
      'issue-server',
      'inventory',
      '--san',
      'inventory.internal',
      '--san',
      '127.0.0.1',
      '--ca-dir',
      join(dir, 'ca'),
      '--dir',
      join(dir, 'out'),
      '--json',
    );
    expect(srv.code).toBe(0);
    expect(srv.json()).toMatchObject({ commonName: 'inventory', role: 'inventory', usage: 'server', sans: ['inventory.internal', '127.0.0.1'] });
    const node = await ctl('cert', 'issue-node', 'gpu-a-01', '--ca-dir', join(dir, 'ca'), '--dir', join(dir, 'out'), '--json');
    expect(node.json()).toMatchObject({ commonName: 'gpu-a-01', role: 'node', usage: 'client', sans: [] });
    const client = await ctl('cert', 'issue-client', 'router', '--role', 'router', '--ca-dir', join(dir, 'ca'), '--dir', join(dir, 'out'));
    expect(client.code).toBe(0);
    expect(client.out).toMatch(/CN:\s+router/);
    expect(client.out).toMatch(/role:\s+router/);
    const sched = await ctl(
      'cert',
      'issue-server',
      'sched',
      '--role',
      'placement-scheduler',
      '--client',
      '--san',
      '127.0.0.1',
      '--ca-dir',
      join(dir, 'ca'),
      '--dir',
      join(dir, 'out'),
      '--json',
    );
    expect(sched.json()).toMatchObject({ commonName: 'sched', role: 'placement-scheduler', usage: 'server+client' });
    expect(new X509Certificate(readFileSync(join(dir, 'out', 'sched.crt'))).subject).toBe('OU=placement-scheduler\nCN=sched');
    expect(client.out).toContain('(mode 0600)');
    expect(client.out).not.toMatch(/BEGIN (EC )?PRIVATE KEY/);

    for (const n of ['inventory', 'gpu-a-01', 'router']) {
      expect(mode(join(dir, 'out', `${n}.key`))).toBe(0o600);
      const x = new X509Certificate(readFileSync(join(dir, 'out', `${n}.crt`)));
      expect(x.verify(caCert.publicKey)).toBe(true);
      expect(x.checkIssued(caCert)).toBe(true);
    }
  }, 60_000);

  it('the issued certificates work: the node certificate registers as its node id and as no other', async () => {
    const read = (p: string) => readFileSync(join(dir, p));
    const server = createServer();
    server.addService(agentServiceDefinition(), { Connect: agentConnectHandler({ requireCert: true, onRegister: () => {} }) });
    const port = await listen(server, '127.0.0.1', 0, {
      tls: { ca: read('ca/ca.crt'), cert: read('out/inventory.crt'), key: read('out/inventory.key'), requireClientCert: true },
    });
    const tls = { ca: read('ca/ca.crt'), cert: read('out/gpu-a-01.crt'), key: read('out/gpu-a-01.key') };
    const first = (nodeId: string) =>
      new Promise<{ ack?: string; err?: string }>((resolve) => {
        const c = makeClient(agentServiceClient(), `127.0.0.1:${port}`, { tls });
        const call = c.Connect();
        call.on('data', (m) => {
          resolve({ ack: m.ack?.result });
          call.cancel();
          c.close();
        });
        call.on('error', (e) => {
          resolve({ err: fromGrpcError(e).code });
          c.close();
        });
        call.write({ register: { node: { nodeId }, sessionId: 's' } });
      });
    try {
      expect(await first('gpu-a-01')).toEqual({ ack: 'ACK_RESULT_ACCEPTED' });
      expect(await first('gpu-b-02')).toEqual({ err: 'LLMGW_ERR_PERMISSION_DENIED' });
    } finally {
      await shutdown(server, 500);
    }
  }, 30_000);

  it.each([
    [['cert', 'init-ca', '--dir', 'CA'], /ca\.crt and .*ca\.key already exist; pass --force to replace/],
    [['cert', 'issue-node', 'GPU_A', '--ca-dir', 'CA', '--dir', 'OUT'], /node id "GPU_A" must be \[a-z0-9.-\]/],
    [['cert', 'issue-server', 'x', '--ca-dir', 'CA', '--dir', 'OUT'], /needs at least one --san/],
    [['cert', 'issue-server', 'x', '--san', 'bad host!', '--ca-dir', 'CA', '--dir', 'OUT'], /SAN "bad host!" is neither an IP nor a DNS name/],
    [['cert', 'issue-node', 'gpu-a-01', '--ca-dir', 'CA', '--dir', 'OUT'], /gpu-a-01\.crt and .*gpu-a-01\.key already exist/],
    [['cert', 'issue-client', 'x', '--role', 'operator', '--ca-dir', 'NOCA', '--dir', 'OUT'], /no CA at .*none .*run `llmgw ctl cert init-ca/],
    [['cert', 'issue-client', 'x', '--role', 'admin', '--ca-dir', 'CA', '--dir', 'OUT'], /--role "admin" is not a role; one of router, operator, node/],
    [['cert', 'issue-client', 'x', '--role', 'node', '--ca-dir', 'CA', '--dir', 'OUT'], /use `llmgw ctl cert issue-node <node-id>`/],
    [['cert', 'issue-server', 'x', '--client', '--san', '10.0.0.1', '--ca-dir', 'CA', '--dir', 'OUT'], /--client needs --role/],
    [['cert', 'init-ca', '--dir', 'OTHER', '--days', '0'], /--days must be 1–36500/],
  ])('refuses %j (exit 2, nothing written)', async (argv, message) => {
    const paths = argv.map((a) =>
      a === 'CA' ? join(dir, 'ca') : a === 'OUT' ? join(dir, 'out') : a === 'NOCA' ? join(dir, 'none') : a === 'OTHER' ? join(dir, 'other') : a,
    );
    const r = await ctl(...paths);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('--force replaces, with a new key', async () => {
    const before = readFileSync(join(dir, 'out', 'router.key'), 'utf8');
    expect((await ctl('cert', 'issue-client', 'router', '--role', 'router', '--ca-dir', join(dir, 'ca'), '--dir', join(dir, 'out'), '--force')).code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'router.key'), 'utf8')).not.toBe(before);
  }, 30_000);
});
