/**
 * The local PKI of `llmgw up` (docs/security.md): on the first start a CA and
 * one certificate per role in `<data-dir>/tls/` (directory 0700, keys 0600),
 * reused on later starts while they are valid and name the addresses in use.
 * Every link of the stack runs over mTLS with these.
 */
import type { X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { initCa, issueCert, readCertificate, type CertFiles, type Role } from '@llmgw/grpc';

/** The services `up` runs that serve gRPC, each with a server certificate. */
export const UP_SERVER_ROLES = ['accounting', 'admission', 'inventory', 'placement-scheduler'] as const;
export type UpServerRole = (typeof UP_SERVER_ROLES)[number];

/** A server `tls` block, and a client one, as the service configs take them (paths). */
export interface ServerTlsBlock {
  cert: string;
  key: string;
  client_ca: string;
}
export interface ClientTlsBlock {
  ca: string;
  cert: string;
  key: string;
}

export interface UpPki {
  dir: string;
  ca: string;
  server(role: UpServerRole): ServerTlsBlock;
  /** A client block for a role (router, operator; the placement-scheduler's certificate is also a client one). */
  client(role: 'router' | 'operator' | 'placement-scheduler' | 'portal'): ClientTlsBlock;
  /** A node-agent's client block: CN = node id. */
  node(nodeId: string): ClientTlsBlock;
  /** Certificates issued by this start (empty when everything was reused). */
  issued: string[];
}

/** The SANs servers need: loopback, this host's name, and the listen host when it is a concrete one. */
export function upSans(host: string): string[] {
  const names = new Set(['127.0.0.1', '::1', 'localhost']);
  if (host && host !== '0.0.0.0' && host !== '::') names.add(host);
  const h = hostname().toLowerCase();
  if (/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(h)) names.add(h);
  return [...names];
}

const RENEW_BEFORE_MS = 30 * 86_400_000;

/** Whether `f` can be reused: signed by `ca`, valid a while longer, of `role`, with every SAN in `sans`. */
function reusable(f: CertFiles, ca: X509Certificate, role: string, cn: string, sans: readonly string[]): boolean {
  if (!existsSync(f.certPath) || !existsSync(f.keyPath)) return false;
  try {
    const x = readCertificate(f.certPath);
    if (!x.checkIssued(ca) || !x.verify(ca.publicKey)) return false;
    if (new Date(x.validTo).getTime() < Date.now() + RENEW_BEFORE_MS) return false;
    const subject = x.subject.split('\n');
    if (!subject.includes(`OU=${role}`) || !subject.includes(`CN=${cn}`)) return false;
    const have = new Set(
      (x.subjectAltName ?? '').split(',').map((s) =>
        s
          .trim()
          .replace(/^(DNS|IP Address):/, '')
          .toLowerCase(),
      ),
    );
    return sans.every((s) => have.has(isIP(s) === 6 ? expandV6(s) : s.toLowerCase()));
  } catch {
    return false;
  }
}

// Node prints IPv6 SANs fully expanded (0:0:0:0:0:0:0:1).
function expandV6(ip: string): string {
  const [head, tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => g.replace(/^0+(?=.)/, '').toLowerCase()).join(':');
}

/**
 * The CA and certificates in `<dataDir>/tls`: made on the first start,
 * reused after, re-issued one by one when missing, expiring within 30 days,
 * or lacking a SAN of `host`.
 */
export async function ensureUpPki(dataDir: string, host: string, nodeIds: readonly string[]): Promise<UpPki> {
  const dir = resolve(dataDir, 'tls');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const issued: string[] = [];
  let caFiles: CertFiles = { certPath: join(dir, 'ca.crt'), keyPath: join(dir, 'ca.key') };
  let caOk = existsSync(caFiles.certPath) && existsSync(caFiles.keyPath);
  let caCert: X509Certificate | undefined;
  if (caOk) {
    try {
      caCert = readCertificate(caFiles.certPath);
      caOk = caCert.ca && new Date(caCert.validTo).getTime() > Date.now() + RENEW_BEFORE_MS;
    } catch {
      caOk = false;
    }
  }
  if (!caOk) {
    caFiles = await initCa({ dir, commonName: 'llmgw-up-ca', days: 3650 });
    caCert = readCertificate(caFiles.certPath);
    issued.push('ca');
  }
  const sans = upSans(host);
  type Want = { name: string; cn: string; role: Role; usage: 'server' | 'client' | 'server+client'; sans?: string[] };
  const wants: Want[] = [
    ...UP_SERVER_ROLES.map((r): Want => ({ name: r, cn: r, role: r, usage: r === 'placement-scheduler' ? 'server+client' : 'server', sans })),
    { name: 'router', cn: 'up-router', role: 'router', usage: 'client' },
    { name: 'operator', cn: 'up-operator', role: 'operator', usage: 'client' },
    { name: 'portal', cn: 'up-portal', role: 'portal', usage: 'client' },
    ...nodeIds.map((id): Want => ({ name: `node-${id}`, cn: id, role: 'node', usage: 'client' })),
  ];
  await Promise.all(
    wants.map(async (w) => {
      const f = { certPath: join(dir, `${w.name}.crt`), keyPath: join(dir, `${w.name}.key`) };
      if (caOk && reusable(f, caCert!, w.role, w.cn, w.sans ?? [])) return;
      await issueCert({ ca: caFiles, dir, name: w.name, commonName: w.cn, role: w.role, usage: w.usage, sans: w.sans, days: 825 });
      issued.push(w.name);
    }),
  );
  const ca = caFiles.certPath;
  const pair = (name: string) => ({ cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) });
  return {
    dir,
    ca,
    server: (r) => ({ ...pair(r), client_ca: ca }),
    client: (r) => ({ ca, ...pair(r) }),
    node: (id) => ({ ca, ...pair(`node-${id}`) }),
    issued,
  };
}
