import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';

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
 * directory `up` ran in. Returns the file's path. Rewritten on every start
 * (ports may change); owner-only, as it will name the operator's client files.
 */
export function writeCtlConfig(dataDir: string, addrs: CtlAddresses): string {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, CTL_CONFIG_FILE);
  const doc: Record<string, unknown> = {};
  if (addrs.accounting) doc.accounting = addrs.accounting;
  if (addrs.control) doc.control = addrs.control;
  writeFileSync(file, `# Written by llmgw up on every start: where llmgw ctl finds this stack.\n${stringify(doc)}`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}
