import { ConfigError, ctlConfigSchema, parseConfig, readConfigFile, type CtlConfigFile } from '@llmgw/config';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { usage } from './format';

/** Where ctl looks for its config file, in order (docs/ctl.md). */
export interface CtlConfigSearch {
  /** $LLMGW_CTL_CONFIG: must exist when set. */
  explicit?: string;
  /** Tried in order; the first that exists is used. */
  search?: string[];
}

/** The default search: `$LLMGW_CTL_CONFIG`, `./.llmgw/ctl.yaml`, `~/.config/llmgw/ctl.yaml`. */
export function defaultConfigSearch(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): CtlConfigSearch {
  let home: string | undefined;
  try {
    home = homedir();
  } catch {
    // no home directory (containers)
  }
  return {
    explicit: env.LLMGW_CTL_CONFIG || undefined,
    search: [join(cwd, '.llmgw', 'ctl.yaml'), ...(home ? [join(home, '.config', 'llmgw', 'ctl.yaml')] : [])],
  };
}

/** A loaded config file, TLS paths made absolute. */
export interface LoadedCtlConfig extends CtlConfigFile {
  /** The file it came from. */
  path: string;
}

/**
 * The config file ctl uses: `flag` (--config) if given, else the search's
 * explicit path, else the first existing search path; undefined when none.
 * A named file that is missing or invalid is a usage error naming it.
 */
export function findCtlConfig(flag: string | undefined, s: CtlConfigSearch = {}): LoadedCtlConfig | undefined {
  const named = flag ?? s.explicit;
  if (named !== undefined) {
    const path = resolve(named);
    if (!existsSync(path)) throw usage(`config file ${path} does not exist (${flag !== undefined ? '--config' : '$LLMGW_CTL_CONFIG'})`);
    return loadCtlConfig(path);
  }
  const found = (s.search ?? []).find((p) => existsSync(p));
  return found ? loadCtlConfig(found) : undefined;
}

/** Reads and validates one ctl config file; relative TLS paths are relative to it. */
export function loadCtlConfig(path: string): LoadedCtlConfig {
  let c: CtlConfigFile;
  try {
    c = parseConfig(ctlConfigSchema, readConfigFile(path) ?? {}, path);
  } catch (e) {
    if (e instanceof ConfigError) throw usage(e.message);
    throw e;
  }
  const dir = dirname(path);
  const abs = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(dir, p));
  const tls = c.tls ? { ...c.tls, ca: abs(c.tls.ca)!, ...(c.tls.cert ? { cert: abs(c.tls.cert), key: abs(c.tls.key) } : {}) } : undefined;
  return { ...c, ...(tls ? { tls } : {}), path };
}
