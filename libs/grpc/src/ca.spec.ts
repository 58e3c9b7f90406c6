import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initCa, issueCert, subjectAltNames, type CertFiles } from './ca';

describe('private CA', () => {
  let dir: string;
  let ca: CertFiles;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-ca-'));
    ca = await initCa({ dir, commonName: 'test-ca', days: 30 });
  }, 20_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [['10.0.0.5', 'inventory.internal', '::1'], 'IP:10.0.0.5,DNS:inventory.internal,IP:::1'],
    [['localhost'], 'DNS:localhost'],
  ])('SANs %j → %s', (names, want) => {
    expect(subjectAltNames(names)).toBe(want);
  });

  it('makes a CA certificate that can sign, with a private key only its owner reads', () => {
    const c = new X509Certificate(readFileSync(ca.certPath));
    expect(c.ca).toBe(true);
    expect(c.subject).toContain('CN=test-ca');
    expect(statSync(ca.keyPath).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['server', 'inventory', ['10.1.2.3', 'inv.example'], 'TLS Web Server Authentication'],
    ['client', 'gpu-a-01', [], 'TLS Web Client Authentication'],
  ] as const)(
    'issues a %s certificate for %s (%j, %s)',
    async (usage, cn, sans, _eku) => {
      const f = await issueCert({ ca, dir, name: `${usage}-${cn}`, commonName: cn, sans, usage });
      const c = new X509Certificate(readFileSync(f.certPath));
      expect(c.subject).toContain(`CN=${cn}`);
      expect(c.issuer).toContain('CN=test-ca');
      expect(c.ca).toBe(false);
      expect(c.checkIssued(new X509Certificate(readFileSync(ca.certPath)))).toBe(true);
      for (const s of sans) expect(c.subjectAltName).toContain(s);
      expect(statSync(f.keyPath).mode & 0o777).toBe(0o600);
    },
    20_000,
  );

  it('puts the role in the subject OU', async () => {
    const f = await issueCert({ ca, dir, name: 'role-router', commonName: 'router-1', usage: 'client', role: 'router' });
    expect(new X509Certificate(readFileSync(f.certPath)).subject.split('\n')).toEqual(['OU=router', 'CN=router-1']);
  }, 20_000);

  it.each([
    [{ commonName: 'x', usage: 'client' as const, role: 'a/OU=operator' }, /role/],
    [{ commonName: 'a/CN=evil', usage: 'client' as const }, /common name/],
    [{ commonName: 'inv', usage: 'server' as const }, /needs at least one SAN/],
    [{ commonName: 'inv', usage: 'server' as const, sans: ['bad name!'] }, /neither an IP nor a DNS name/],
  ])('refuses %j', async (o, re) => {
    await expect(issueCert({ ca, dir, name: 'x', ...o })).rejects.toThrow(re);
  });
});
