import { writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { stringify } from 'yaml';
import type { UpPki } from './tls';

/**
 * Writes `<data-dir>/ctl.yaml` (docs/ctl.md), which `llmgw ctl` finds from
 * the clone's directory with no flags: the admin API addresses, and the CA
 * and operator certificate to reach them over mTLS (paths relative to the file).
 */
export function writeCtlConfig(dataDir: string, addresses: { accounting?: string; control?: string }, pki?: UpPki): string {
  const dir = resolve(dataDir);
  const file = join(dir, 'ctl.yaml');
  const rel = (p: string) => relative(dir, p);
  const hostPort = (u: string | undefined) => u?.replace(/^[a-z]+:\/\//, '');
  const tls = pki ? (({ ca, cert, key }) => ({ ca: rel(ca), cert: rel(cert), key: rel(key) }))(pki.client('operator')) : undefined;
  const doc = {
    ...(addresses.accounting ? { accounting: hostPort(addresses.accounting) } : {}),
    ...(addresses.control ? { control: hostPort(addresses.control) } : {}),
    ...(tls ? { tls } : {}),
  };
  writeFileSync(file, `# Written by llmgw up on each start: what \`llmgw ctl\` uses here with no flags.\n${stringify(doc)}`, { mode: 0o600 });
  return file;
}
