import { spawnRole, testPki, type SpawnedRole, type TestPki } from '@llmgw/testing';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { defaultConfigSearch, findCtlConfig } from '../src/config-file';
import { main, type CtlBoot } from '../src/main';

async function ctl(argv: string[], boot: Partial<CtlBoot> = {}) {
  let out = '';
  let err = '';
  const code = await main(
    argv,
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
    { actor: 'tester@ci', ...boot },
  );
  return { code, out, err };
}

describe('llmgw ctl config file', () => {
  let dir: string;
  let pki: TestPki;
  let inv: SpawnedRole;
  let sched: SpawnedRole;
  let control: string;

  beforeAll(async () => {
    pki = await testPki();
    dir = mkdtempSync(join(tmpdir(), 'llmgw-ctl-config-'));
    // The ControlService ctl talks to is the placement-scheduler's (over mTLS); it relays node verbs to inventory.
    inv = await spawnRole('inventory', ['--port', '0', '--agent-listen', '127.0.0.1:0', '--admin-port', '0', '--log-level', 'warn'], { timeoutMs: 60_000 });
    const catalog = join(dir, 'catalog.yaml');
    writeFileSync(catalog, stringify({ models: [] }));
    const cfg = join(dir, 'placement-scheduler.yaml');
    writeFileSync(
      cfg,
      stringify({
        catalog,
        inventory: { address: inv.urls.grpc.replace(/^http:\/\//, '') },
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        tls: pki.serverTls(),
        log_level: 'warn',
      }),
    );
    sched = await spawnRole('placement-scheduler', ['--config', cfg], { timeoutMs: 60_000 });
    control = sched.urls.control.replace(/^http:\/\//, '');
    // The files beside the config, named relatively (as `llmgw up` writes them).
    mkdirSync(join(dir, 'conf', 'tls'), { recursive: true });
    copyFileSync(pki.ca, join(dir, 'conf', 'tls', 'ca.crt'));
    copyFileSync(pki.role('operator').cert, join(dir, 'conf', 'tls', 'operator.crt'));
    copyFileSync(pki.role('operator').key, join(dir, 'conf', 'tls', 'operator.key'));
    writeFileSync(
      join(dir, 'conf', 'ctl.yaml'),
      stringify({ control, tls: { ca: 'tls/ca.crt', cert: 'tls/operator.crt', key: 'tls/operator.key' }, actor: 'ops@test' }),
    );
  }, 90_000);
  afterAll(async () => {
    await sched?.stop();
    await inv?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches an mTLS admin API with the address and TLS files of the config file (paths relative to it)', async () => {
    const r = await ctl(['nodes', '--json', '--config', join(dir, 'conf', 'ctl.yaml')]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it('is found through $LLMGW_CTL_CONFIG or ./.llmgw/ctl.yaml with no flags', async () => {
    expect((await ctl(['nodes', '--json'], { configSearch: { explicit: join(dir, 'conf', 'ctl.yaml') } })).code).toBe(0);
    expect((await ctl(['nodes', '--json'], { configSearch: { search: [join(dir, 'nope.yaml'), join(dir, 'conf', 'ctl.yaml')] } })).code).toBe(0);
  });

  it('lets flags and LLMGW_TLS_* win over the file: a node certificate is refused, naming the role', async () => {
    const r = await ctl([
      'nodes',
      '--config',
      join(dir, 'conf', 'ctl.yaml'),
      '--tls-cert',
      pki.node('test-node-1').cert,
      '--tls-key',
      pki.node('test-node-1').key,
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/wrong role "node" \(CN=test-node-1\) for llmgw\.control\.v1\.ControlService\/ListNodes/);
    const e = await ctl(['nodes', '--config', join(dir, 'conf', 'ctl.yaml')], { tls: { cert: pki.role('router').cert, key: pki.role('router').key } });
    expect(e.err).toMatch(/wrong role "router"/);
  });

  it('without TLS, the mTLS port cannot be reached (exit 1, the hint names where the address came from)', async () => {
    const r = await ctl(['nodes', '--control', control, '--timeout', '1500']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/cannot reach the control API at .*config file/);
  });

  it.each([
    [(d: string) => ['nodes', '--config', join(d, 'missing.yaml')], /config file .*missing\.yaml does not exist \(--config\)/],
    [
      (d: string) => (writeFileSync(join(d, 'bad.yaml'), 'control: 1.2.3.4\ntls: { ca: x, cert: y }\nportal: z\n'), ['nodes', '--config', join(d, 'bad.yaml')]),
      /bad\.yaml[\s\S]*control[\s\S]*must be host:port[\s\S]*cert and key go together[\s\S]*portal/,
    ],
    [
      (d: string) => (
        writeFileSync(join(d, 'nofile.yaml'), stringify({ control: '127.0.0.1:1', tls: { ca: 'absent.crt' } })),
        ['nodes', '--config', join(d, 'nofile.yaml')]
      ),
      /cannot read .*absent\.crt: ENOENT/,
    ],
  ])('refuses a bad config file with its name and the key (exit 2) — case %#', async (argv, message) => {
    const r = await ctl(argv(dir));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('searches $LLMGW_CTL_CONFIG, then ./.llmgw/ctl.yaml, then ~/.config/llmgw/ctl.yaml; --config wins', () => {
    const s = defaultConfigSearch({ LLMGW_CTL_CONFIG: '/etc/x.yaml' }, '/work/clone');
    expect(s.explicit).toBe('/etc/x.yaml');
    expect(s.search![0]).toBe('/work/clone/.llmgw/ctl.yaml');
    expect(s.search![1]).toMatch(/\.config\/llmgw\/ctl\.yaml$/);
    const f = findCtlConfig(join(dir, 'conf', 'ctl.yaml'), { explicit: join(dir, 'missing.yaml') })!;
    expect(f).toMatchObject({ control, actor: 'ops@test', tls: { ca: join(dir, 'conf', 'tls', 'ca.crt'), cert: join(dir, 'conf', 'tls', 'operator.crt') } });
    expect(findCtlConfig(undefined, { search: [join(dir, 'none.yaml')] })).toBeUndefined();
  });
});
