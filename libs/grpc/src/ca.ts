import { execFile } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Paths of a PEM certificate and its private key. */
export interface CertFiles {
  certPath: string;
  keyPath: string;
}

/** The loaded PEMs of a CertFiles pair. */
export async function readCertFiles(f: CertFiles): Promise<{ cert: Buffer; key: Buffer }> {
  return { cert: await readFile(f.certPath), key: await readFile(f.keyPath) };
}

/** A certificate file, parsed (to describe it, check its issuer, SANs, expiry). */
export function readCertificate(path: string): X509Certificate {
  return new X509Certificate(readFileSync(path));
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args, { timeout: 30_000 });
  } catch (e: any) {
    throw new Error(`openssl ${args[0]} failed: ${String(e.stderr || e.message).trim()}`);
  }
}

// Names go into openssl's -subj, where '/' and '=' have meaning; node ids and
// service names never need them.
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
function checkName(what: string, v: string): void {
  if (!SAFE_NAME.test(v)) throw new Error(`${what} ${JSON.stringify(v)} must match ${SAFE_NAME}`);
}

const KEY_ARGS = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * Creates the private CA (docs/security.md) in `dir` (ca.crt, ca.key, key mode 0600).
 * Its key should live on one machine; its certificate is trusted everywhere.
 */
export async function initCa(opts: { dir: string; commonName?: string; days?: number }): Promise<CertFiles> {
  checkName('CA common name', opts.commonName ?? 'llmgw-ca');
  await mkdir(opts.dir, { recursive: true });
  const f = { certPath: join(opts.dir, 'ca.crt'), keyPath: join(opts.dir, 'ca.key') };
  await openssl([
    'req',
    '-x509',
    ...KEY_ARGS,
    '-keyout',
    f.keyPath,
    '-out',
    f.certPath,
    '-days',
    String(opts.days ?? 3650),
    '-subj',
    `/CN=${opts.commonName ?? 'llmgw-ca'}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await chmod(f.keyPath, 0o600);
  return f;
}

/** Subject alternative names as openssl spells them: bare IPs as IP:, the rest DNS:. */
export function subjectAltNames(names: readonly string[]): string {
  return names.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
}

export interface IssueOptions {
  ca: CertFiles;
  /** Where `<name>.crt` and `<name>.key` are written. */
  dir: string;
  name: string;
  /** The subject CN; for an agent's client certificate, its node id. */
  commonName: string;
  /**
   * Every address clients dial, bare IPs included: hostname verification
   * ignores the CN, so a server certificate without SANs is rejected.
   */
  sans?: readonly string[];
  /** serverAuth, clientAuth, or both (a service that serves and calls with one certificate). */
  usage: 'server' | 'client' | 'server+client';
  /**
   * The role the certificate carries in its subject OU (docs/security.md):
   * what a server authorizes, per method, for the caller presenting it.
   */
  role?: string;
  days?: number;
}

/** Issues a leaf certificate signed by `ca` (serverAuth or clientAuth). */
export async function issueCert(opts: IssueOptions): Promise<CertFiles> {
  checkName('common name', opts.commonName);
  checkName('file name', opts.name);
  if (opts.role !== undefined) checkName('role', opts.role);
  for (const n of opts.sans ?? [])
    if (!isIP(n) && !/^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(n)) throw new Error(`SAN ${JSON.stringify(n)} is neither an IP nor a DNS name`);
  if (opts.usage !== 'client' && !opts.sans?.length) throw new Error('issueCert: a server certificate needs at least one SAN');
  await mkdir(opts.dir, { recursive: true });
  const f = { certPath: join(opts.dir, `${opts.name}.crt`), keyPath: join(opts.dir, `${opts.name}.key`) };
  const csr = join(opts.dir, `${opts.name}.csr.tmp`);
  const ext = join(opts.dir, `${opts.name}.ext.tmp`);
  const subj = `${opts.role ? `/OU=${opts.role}` : ''}/CN=${opts.commonName}`;
  const serial = `0x${randomBytes(16)
    .toString('hex')
    .replace(/^[89a-f]/, '1')}`;
  const lines = [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    `extendedKeyUsage=${{ server: 'serverAuth', client: 'clientAuth', 'server+client': 'serverAuth,clientAuth' }[opts.usage]}`,
    ...(opts.sans?.length ? [`subjectAltName=${subjectAltNames(opts.sans)}`] : []),
  ];
  try {
    // OpenSSL 3 signs with the CA in the one `req` that makes the key: half the process starts.
    const oneStep = [
      'req',
      '-x509',
      ...KEY_ARGS,
      '-keyout',
      f.keyPath,
      '-out',
      f.certPath,
      '-subj',
      subj,
      '-CA',
      opts.ca.certPath,
      '-CAkey',
      opts.ca.keyPath,
      '-set_serial',
      serial,
      '-days',
      String(opts.days ?? 825),
      ...lines.flatMap((l) => ['-addext', l]),
    ];
    try {
      await openssl(oneStep);
    } catch (e) {
      if (!/unknown option|unrecognized|-CA/i.test((e as Error).message)) throw e;
      await writeFile(ext, lines.join('\n') + '\n');
      await openssl(['req', '-new', ...KEY_ARGS, '-keyout', f.keyPath, '-out', csr, '-subj', subj]);
      await openssl([
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        opts.ca.certPath,
        '-CAkey',
        opts.ca.keyPath,
        '-set_serial',
        serial,
        '-days',
        String(opts.days ?? 825),
        '-extfile',
        ext,
        '-out',
        f.certPath,
      ]);
    }
    await chmod(f.keyPath, 0o600);
  } finally {
    await rm(csr, { force: true });
    await rm(ext, { force: true });
  }
  return f;
}
