import type { agentV1 } from '@llmgw/contracts';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Shard ids become file names: nothing that could leave the state directory. */
export const SHARD_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * What the agent persists per running shard, so that a restarted agent can
 * re-adopt the engine: pid, pgid and the kernel's start time of the pid
 * (a reused pid has another start time, so it is never mistaken for ours).
 */
export interface ShardRecord {
  version: 1;
  spec: agentV1.ShardSpec__Output;
  state: agentV1.ShardState__Output;
  stateSinceMs: number;
  message: string;
  pid: number;
  pgid: number;
  /** /proc/<pid>/stat field 22. */
  startTime: number;
  /** When the engine was launched (agent clock), for the startup timeout after adoption. */
  launchedAtMs: number;
  argv: string[];
  cleanup?: string[];
  restarts: number;
}

/** The state directory: `<work_dir>/shards/<shard_id>.{json,stdout.log,stderr.log}`. */
export class StateStore {
  readonly dir: string;
  constructor(workDir: string) {
    this.dir = join(workDir, 'shards');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  path(shardId: string, what: 'json' | 'stdout.log' | 'stderr.log'): string {
    if (!SHARD_ID_PATTERN.test(shardId)) throw new Error(`invalid shard id ${JSON.stringify(shardId)}`);
    return join(this.dir, `${shardId}.${what}`);
  }

  /** Written atomically (temp file + rename): a crash mid-write leaves the old record. */
  save(rec: ShardRecord): void {
    const p = this.path(rec.spec.shardId, 'json');
    writeFileSync(`${p}.tmp`, JSON.stringify(rec), { mode: 0o600 });
    renameSync(`${p}.tmp`, p);
  }

  remove(shardId: string): void {
    rmSync(this.path(shardId, 'json'), { force: true });
  }

  /** Removes a shard's output files (before a fresh start under the same id). */
  removeLogs(shardId: string): void {
    rmSync(this.path(shardId, 'stdout.log'), { force: true });
    rmSync(this.path(shardId, 'stderr.log'), { force: true });
  }

  /** Every readable record; unreadable files are returned as problems (and left for an operator). */
  load(): { records: ShardRecord[]; problems: string[] } {
    const records: ShardRecord[] = [];
    const problems: string[] = [];
    for (const f of readdirSync(this.dir)
      .filter((n) => n.endsWith('.json'))
      .sort()) {
      try {
        const rec = JSON.parse(readFileSync(join(this.dir, f), 'utf8')) as ShardRecord;
        if (rec.version !== 1 || !rec.spec?.shardId || `${rec.spec.shardId}.json` !== f) throw new Error('not a shard record');
        records.push(rec);
      } catch (e) {
        problems.push(`${join(this.dir, f)}: ${(e as Error).message}`);
      }
    }
    return { records, problems };
  }
}
