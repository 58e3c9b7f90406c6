import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Engine, EngineKind } from './engine';

/** The outcome of checking one engine (`llmgw node-agent engine-check`). */
export interface EngineCheck {
  engine: EngineKind;
  binary: string;
  /** Absolute path the binary resolved to; undefined when not found. */
  resolved?: string;
  version: string;
  /** Flags the adapter passes that the engine's --help does not mention. */
  missingFlags: string[];
  /** Empty when the engine can be used; else why not. */
  error: string;
}

/** The executable `bin` names: a path as given, else the first match on PATH. */
export function resolveBinary(bin: string, path = process.env.PATH ?? ''): string | undefined {
  const ok = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (bin.includes('/')) return ok(bin) ? bin : undefined;
  for (const dir of path.split(delimiter)) if (dir && ok(join(dir, bin))) return join(dir, bin);
  return undefined;
}

/** Flags of `flags` that `help` does not mention (as a whole word: `--port` does not match `--port-range`). */
export function missingFlags(help: string, flags: readonly string[]): string[] {
  return flags.filter((f) => !new RegExp(`(^|[\\s,\\[(|])${f.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')}(?=$|[\\s,=\\])|])`, 'm').test(help));
}

function run(argv: string[], timeoutMs: number): Promise<{ ok: boolean; out: string; error?: string }> {
  return new Promise((resolve) => {
    execFile(argv[0], argv.slice(1), { timeout: timeoutMs, maxBuffer: 8 * 1024 * 1024 }, (err, stdout, stderr) => {
      const out = `${stdout}\n${stderr}`;
      if (!err) return resolve({ ok: true, out });
      resolve({ ok: false, out, error: `${argv.slice(0, 3).join(' ')} failed: ${(err as Error).message.split('\n')[0]}` });
    });
  });
}

/**
 * Checks one engine: binary found, version, and every flag the adapter
 * passes present in its --help. The agent runs the same check before a
 * shard of that engine starts and fails the shard with `error`.
 */
export async function checkEngine(engine: Engine, opts: { timeoutMs?: number } = {}): Promise<EngineCheck> {
  const probe = engine.probe();
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const result: EngineCheck = { engine: engine.kind, binary: probe.binary, version: '', missingFlags: [], error: '' };
  const resolved = resolveBinary(probe.binary);
  if (!resolved) {
    result.error = `${probe.binary} not found${probe.binary.includes('/') ? '' : ' on PATH'}`;
    return result;
  }
  result.resolved = resolved;
  const v = await run(probe.versionArgv, timeoutMs);
  result.version = v.ok ? probe.parseVersion(v.out) : '';
  const help = await run(probe.helpArgv, timeoutMs);
  if (!help.ok && !help.out.trim()) {
    result.error = help.error ?? 'no --help output';
    return result;
  }
  result.missingFlags = missingFlags(help.out, engine.flags());
  if (result.missingFlags.length) result.error = `${probe.binary} does not accept ${result.missingFlags.join(', ')} (not in its --help)`;
  return result;
}
