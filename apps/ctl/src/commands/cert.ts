import { initCa, isRole, issueCert, readCertificate, ROLES, type CertFiles } from '@llmgw/grpc';
import type { Command } from 'commander';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CtlContext } from '../context';
import { fields, usage } from '../format';
import { withJson } from './shared';

/** A node id as the agent proto defines it (NodeInfo.node_id). */
const NODE_ID = /^[a-z0-9][a-z0-9.-]{0,62}$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

interface Issued {
  cert: string;
  key: string;
  commonName: string;
  /** The subject OU: what servers authorize. */
  role?: string;
  usage: 'ca' | 'server' | 'client' | 'server+client';
  sans: string[];
  notAfter: string;
  fingerprintSha256: string;
}

/** What a written certificate says, read back from the file. */
function describe(f: CertFiles, use: Issued['usage']): Issued {
  const x = readCertificate(f.certPath);
  const cn = /CN=([^\n,]+)/.exec(x.subject)?.[1] ?? '';
  const role = /(?:^|\n)OU=([^\n,]+)/.exec(x.subject)?.[1];
  const sans = (x.subjectAltName ?? '')
    .split(',')
    .map((s) => s.trim().replace(/^(DNS|IP Address):/, ''))
    .filter(Boolean);
  return {
    cert: f.certPath,
    key: f.keyPath,
    commonName: cn,
    ...(role ? { role } : {}),
    usage: use,
    sans,
    notAfter: new Date(x.validTo).toISOString(),
    fingerprintSha256: x.fingerprint256,
  };
}

function days(v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 36500) throw usage(`--days must be 1–36500, got "${v}"`);
  return Number(v);
}

function refuseOverwrite(paths: string[], force: boolean | undefined): void {
  if (force) return;
  const there = paths.filter((p) => existsSync(p));
  if (there.length) throw usage(`${there.join(' and ')} already exist${there.length > 1 ? '' : 's'}; pass --force to replace`);
}

/** The CA a leaf is signed with: <ca-dir>/ca.crt and ca.key. */
function caFiles(dir: string): CertFiles {
  const f = { certPath: join(dir, 'ca.crt'), keyPath: join(dir, 'ca.key') };
  for (const p of [f.certPath, f.keyPath])
    if (!existsSync(p)) throw usage(`no CA at ${dir} (${p} missing); run \`llmgw ctl cert init-ca --dir ${dir}\` first, or pass --ca-dir`);
  return f;
}

function print(ctx: CtlContext, cmd: Command, issued: Issued, next: string): void {
  ctx.out(
    cmd,
    issued,
    () =>
      fields({
        certificate: issued.cert,
        'private key': `${issued.key} (mode 0600)`,
        CN: issued.commonName,
        role: issued.role,
        usage: issued.usage,
        SANs: issued.sans.join(', ') || undefined,
        expires: issued.notAfter,
        sha256: issued.fingerprintSha256,
      }) + `\n${next}`,
  );
}

/**
 * `llmgw ctl cert …`: the private CA and the certificates every service,
 * operator and agent use (docs/security.md). Each carries its role in the
 * subject OU; servers authorize callers by it. Keys are written mode 0600
 * and never printed.
 */
export function registerCert(program: Command, ctx: CtlContext): void {
  const cert = program
    .command('cert')
    .description('the private CA and the certificates services and node-agents use for mTLS (keys written mode 0600)')
    .addHelpText(
      'after',
      `
Roles (the subject OU; docs/security.md): ${ROLES.join(', ')}.
  llmgw ctl cert init-ca --dir /etc/llmgw/ca                     # once, on one machine; keep ca.key there
  llmgw ctl cert issue-server inventory --role inventory --san inventory.internal --san 10.0.0.2 --ca-dir /etc/llmgw/ca --dir ./out
  llmgw ctl cert issue-server placement --role placement-scheduler --client --san 10.0.0.2 --ca-dir /etc/llmgw/ca --dir ./out  # serves ctl, calls inventory
  llmgw ctl cert issue-client router-1 --role router --ca-dir /etc/llmgw/ca --dir ./out    # calls admission and accounting
  llmgw ctl cert issue-client alice --role operator --ca-dir /etc/llmgw/ca --dir ./out     # llmgw ctl (CN = the audit actor)
  llmgw ctl cert issue-node gpu-a-01 --ca-dir /etc/llmgw/ca --dir ./out   # role node, CN = node id = agent.yaml node_id`,
    );

  const roleOf = (v: string | undefined, what: string, allowNode = false): string | undefined => {
    if (v === undefined) return undefined;
    if (!isRole(v)) throw usage(`--role ${JSON.stringify(v)} is not a role; one of ${ROLES.join(', ')}`);
    if (v === 'node' && !allowNode) throw usage(`role node is for node-agents: use \`llmgw ctl cert issue-node <node-id>\` (CN = node id) instead of ${what}`);
    return v;
  };

  const dirOpt = (c: Command) => c.option('--dir <dir>', 'where to write the files', '.');
  const caOpt = (c: Command) => c.option('--ca-dir <dir>', 'the CA made by init-ca (ca.crt, ca.key); default: --dir');

  withJson(dirOpt(cert.command('init-ca').description('create the private CA (ca.crt, ca.key); its key should stay on this one machine')))
    .option('--cn <name>', 'the CA common name', 'llmgw-ca')
    .option('--days <n>', 'validity in days', '3650')
    .option('--force', 'replace an existing CA (every certificate it signed stops being trusted)')
    .action(async (o: { dir: string; cn: string; days: string; force?: boolean }, cmd: Command) => {
      if (!NAME.test(o.cn)) throw usage(`--cn ${JSON.stringify(o.cn)} must match ${NAME}`);
      const dir = resolve(o.dir);
      refuseOverwrite([join(dir, 'ca.crt'), join(dir, 'ca.key')], o.force);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const f = await initCa({ dir, commonName: o.cn, days: days(o.days, 3650) });
      chmodSync(f.keyPath, 0o600);
      print(ctx, cmd, describe(f, 'ca'), `Distribute ${f.certPath} to every service and agent (tls.ca); keep ${f.keyPath} here.`);
    });

  withJson(caOpt(dirOpt(cert.command('issue-server <name>').description('a server certificate (serverAuth) carrying every address clients dial as a SAN'))))
    .option('--san <addr>', 'a DNS name or IP clients dial (repeatable; at least one; bare IPs included)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--cn <name>', 'the subject CN (default: <name>; hostname checks ignore it)')
    .option('--role <role>', `the service's role, in the subject OU (${ROLES.filter((r) => r !== 'node').join(', ')}); default: <name> when it is a role`)
    .option('--client', 'also valid as a client certificate (clientAuth): a service that serves and calls with one certificate, e.g. the placement-scheduler')
    .option('--days <n>', 'validity in days', '825')
    .option('--force', 'replace existing files')
    .action(
      async (
        name: string,
        o: { dir: string; caDir?: string; san?: string[]; cn?: string; role?: string; client?: boolean; days: string; force?: boolean },
        cmd: Command,
      ) => {
        if (!NAME.test(name)) throw usage(`name ${JSON.stringify(name)} must match ${NAME}`);
        if (!o.san?.length) throw usage('a server certificate needs at least one --san (every address clients dial, bare IPs included)');
        const role = roleOf(o.role ?? (isRole(name) && name !== 'node' ? name : undefined), 'issue-server');
        if (o.client && !role) throw usage('--client needs --role: the servers it calls authorize it by its role');
        await issue(
          ctx,
          cmd,
          {
            name,
            commonName: o.cn ?? name,
            sans: o.san,
            role,
            usage: o.client ? 'server+client' : 'server',
            dir: o.dir,
            caDir: o.caDir,
            days: o.days,
            force: o.force,
          },
          `Configure the server with tls.cert/tls.key; clients trust ${join(resolve(o.caDir ?? o.dir), 'ca.crt')}.`,
        );
      },
    );

  withJson(
    caOpt(
      dirOpt(
        cert
          .command('issue-client <name>')
          .description('a client certificate (clientAuth) for a service or operator calling an mTLS port; CN = <name>, OU = --role'),
      ),
    ),
  )
    .requiredOption('--role <role>', `what it may call, in the subject OU: ${ROLES.filter((r) => r !== 'node').join(', ')}`)
    .option('--days <n>', 'validity in days', '825')
    .option('--force', 'replace existing files')
    .action(async (name: string, o: { dir: string; caDir?: string; role: string; days: string; force?: boolean }, cmd: Command) => {
      if (!NAME.test(name)) throw usage(`name ${JSON.stringify(name)} must match ${NAME}`);
      const role = roleOf(o.role, 'issue-client');
      await issue(
        ctx,
        cmd,
        { name, commonName: name, role, usage: 'client', dir: o.dir, caDir: o.caDir, days: o.days, force: o.force },
        'Use it as tls.cert/tls.key of the calling side.',
      );
    });

  withJson(
    caOpt(
      dirOpt(
        cert
          .command('issue-node <node-id>')
          .description("a node-agent's client certificate: CN = the node id, which inventory compares with the node id the agent claims"),
      ),
    ),
  )
    .option('--days <n>', 'validity in days', '825')
    .option('--force', 'replace existing files')
    .action(async (nodeId: string, o: { dir: string; caDir?: string; days: string; force?: boolean }, cmd: Command) => {
      if (!NODE_ID.test(nodeId)) throw usage(`node id ${JSON.stringify(nodeId)} must be [a-z0-9.-], at most 63, starting alphanumeric (NodeInfo.node_id)`);
      await issue(
        ctx,
        cmd,
        { name: nodeId, commonName: nodeId, role: 'node', usage: 'client', dir: o.dir, caDir: o.caDir, days: o.days, force: o.force },
        `On ${nodeId}: agent.yaml node_id: ${nodeId}, tls: { ca: ca.crt, cert: ${nodeId}.crt, key: ${nodeId}.key } (key readable only by the agent's user).`,
      );
    });
}

async function issue(
  ctx: CtlContext,
  cmd: Command,
  o: {
    name: string;
    commonName: string;
    sans?: string[];
    role?: string;
    usage: 'server' | 'client' | 'server+client';
    dir: string;
    caDir?: string;
    days: string;
    force?: boolean;
  },
  next: string,
): Promise<void> {
  const dir = resolve(o.dir);
  const ca = caFiles(resolve(o.caDir ?? o.dir));
  refuseOverwrite([join(dir, `${o.name}.crt`), join(dir, `${o.name}.key`)], o.force);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let f: CertFiles;
  try {
    f = await issueCert({ ca, dir, name: o.name, commonName: o.commonName, sans: o.sans, role: o.role, usage: o.usage, days: days(o.days, 825) });
  } catch (e) {
    // The CA helpers check names and SANs before running openssl: those are usage problems.
    if (/^openssl /.test((e as Error).message)) throw e;
    throw usage((e as Error).message);
  }
  chmodSync(f.keyPath, 0o600);
  print(ctx, cmd, describe(f, o.usage), next);
}
