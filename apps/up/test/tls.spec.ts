import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureUpPki } from '../src/tls';
import { writeCtlConfig } from '../src/ctl-config';

describe('llmgw up local PKI', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'llmgw-up-pki-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a CA and a certificate per role on the first start (keys 0600), and reuses them after', async () => {
    const first = await ensureUpPki(dir, '127.0.0.1', ['up-gpu-a']);
    expect(first.issued.sort()).toEqual(['accounting', 'admission', 'ca', 'inventory', 'node-up-gpu-a', 'operator', 'placement-scheduler', 'portal', 'router']);
    expect(statSync(join(dir, 'tls')).mode & 0o777).toBe(0o700);
    for (const k of ['ca', 'accounting', 'router', 'operator', 'node-up-gpu-a']) expect(statSync(join(dir, 'tls', `${k}.key`)).mode & 0o777).toBe(0o600);
    const subject = (f: string) => new X509Certificate(readFileSync(f)).subject.split('\n');
    expect(subject(first.client('router').cert)).toEqual(['OU=router', 'CN=up-router']);
    expect(subject(first.node('up-gpu-a').cert)).toEqual(['OU=node', 'CN=up-gpu-a']);
    expect(subject(first.server('placement-scheduler').cert)).toEqual(['OU=placement-scheduler', 'CN=placement-scheduler']);
    expect(new X509Certificate(readFileSync(first.server('inventory').cert)).subjectAltName).toContain('IP Address:127.0.0.1');

    const again = await ensureUpPki(dir, '127.0.0.1', ['up-gpu-a']);
    expect(again.issued).toEqual([]);
  }, 60_000);

  it('re-issues only what is missing or no longer fits (a new node, a new listen host)', async () => {
    unlinkSync(join(dir, 'tls', 'router.key'));
    const r = await ensureUpPki(dir, '127.0.0.1', ['up-gpu-a', 'up-gpu-b']);
    expect(r.issued.sort()).toEqual(['node-up-gpu-b', 'router']);
    const h = await ensureUpPki(dir, '127.0.0.2', ['up-gpu-a', 'up-gpu-b']);
    expect(h.issued.sort()).toEqual(['accounting', 'admission', 'inventory', 'placement-scheduler']);
  }, 60_000);

  it('writes ctl.yaml with the addresses and the operator certificate, relative to it', async () => {
    const pki = await ensureUpPki(dir, '127.0.0.1', []);
    const f = writeCtlConfig(dir, { accounting: 'http://127.0.0.1:7072', control: '127.0.0.1:7074' }, pki);
    expect(readFileSync(f, 'utf8')).toContain(
      'accounting: 127.0.0.1:7072\ncontrol: 127.0.0.1:7074\ntls:\n  ca: tls/ca.crt\n  cert: tls/operator.crt\n  key: tls/operator.key\n',
    );
    expect(statSync(f).mode & 0o777).toBe(0o600);
  }, 30_000);
});
