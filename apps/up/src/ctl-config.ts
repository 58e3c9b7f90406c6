import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { stringify } from 'yaml';
import type { UpPki } from './tls';

/** The addresses `llmgw ctl` dials (the ctl config file, docs/ctl.md "Config file"). */
export interface CtlAddresses {
  /** Accounting's admin gRPC API, host:port (absent with --no-auth). */
  accounting?: string;
  /** The placement-scheduler's ControlService, host:port (absent with --static). */
  control?: string;
}

/** The file `llmgw ctl` reads when run from the directory above the data dir (`./.llmgw/ctl.yaml`). */
export const CTL_CONFIG_FILE = 'ctl.yaml';

/**
 * Writes `<data-dir>/ctl.yaml` for the stack that just started, so that
 * `llmgw ctl nodes | replicas | org list` work with no flags from the
 * directory `up` ran in: the admin API addresses, and the CA and operator
 * certificate to reach them over mTLS (paths relative to the file). Returns
 * the file's path. Rewritten on every start (ports may change); owner-only.
 */
export function writeCtlConfig(dataDir: string, addrs: CtlAddresses, pki?: UpPki): string {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, CTL_CONFIG_FILE);
  const rel = (p: string) => relative(dir, p);
  const hostPort = (u: string | undefined) => u?.replace(/^[a-z]+:\/\//, '');
  const tls = pki ? (({ ca, cert, key }) => ({ ca: rel(ca), cert: rel(cert), key: rel(key) }))(pki.client('operator')) : undefined;
  const doc = {
    ...(addrs.accounting ? { accounting: hostPort(addrs.accounting) } : {}),
    ...(addrs.control ? { control: hostPort(addrs.control) } : {}),
    ...(tls ? { tls } : {}),
  };
  writeFileSync(file, `# Written by llmgw up on every start: where and how llmgw ctl reaches this stack.\n${stringify(doc)}`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
