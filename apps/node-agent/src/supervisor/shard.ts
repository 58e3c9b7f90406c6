import type { agentV1 } from '@llmgw/contracts';
import type { Logger } from '@llmgw/observability';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Engine, EngineCommand, EngineKind, NodeContext } from '../engines/engine';
import type { WeightsCache } from '../weights/cache';
import { LogRing } from './log-ring';
import { FileTail } from './log-tail';

export type State = agentV1.ShardState__Output;

/** The answer to a command, as it goes into Ack. */
export interface CommandOutcome {
  result: 'ACK_RESULT_ACCEPTED' | 'ACK_RESULT_ALREADY_DONE' | 'ACK_RESULT_REJECTED';
  errorCode?: string;
  message?: string;
}

export interface SupervisorTimings {
  /** Poll period of /health and /v1/models while starting, and of liveness. */
  healthIntervalMs: number;
  stopGraceMs: number;
  drainTimeoutMs: number;
  /** The least a drain takes before nothing in flight counts as drained (capped by the drain's timeout); 0 when absent. */
  drainSettleMs?: number;
  /** STARTING+LOADING limit when the spec carries none. */
  startupTimeoutMs: number;
  /** Crash restarts before FAILED (single-node shards only). */
  maxRestarts: number;
  restartBackoffMs: number;
  restartBackoffMaxMs: number;
}

export interface SupervisorOptions {
  workDir: string;
  engines: ReadonlyMap<EngineKind, Engine>;
  node: NodeContext;
  timings: SupervisorTimings;
  logRingLines: number;
  /**
   * Runs before the first launch of each engine kind (engine-check); a
   * non-empty answer fails the shard with it as the reason.
   */
  preflight?: (engine: Engine) => Promise<string>;
  /** Every state change (and drain progress); `withSpec` on the first status of a shard. */
  onStatus?: (status: agentV1.ShardStatus__Output) => void;
  /** The model cache: shards whose spec names `weights` are DOWNLOADING there before launch (docs/models.md). */
  weights?: { cache: WeightsCache; dir: string; progressEveryMs?: number };
  log?: Logger;
  now?: () => number;
}

export class Shard {
  state: State = 'SHARD_STATE_PENDING';
  since: number;
  message = '';
  pid = 0;
  pgid = 0;
  startTime = 0;
  launchedAtMs = 0;
  exited = false;
  exitCode = 0;
  restarts = 0;
  adopted = false;
  child?: ChildProcess;
  probeTimer?: NodeJS.Timeout;
  stopping?: Promise<void>;
  draining = false;
  /** DRAINING and done: nothing in flight, or the drain timeout passed (ShardStatus.drained). */
  drained = false;
  specSent = false;
  tails: FileTail[] = [];
  /** While DOWNLOADING: the weights' progress (ShardStatus.download). */
  download: agentV1.DownloadProgress__Output | null = null;
  constructor(
    readonly spec: agentV1.ShardSpec__Output,
    readonly engine: Engine,
    readonly cmd: EngineCommand,
    readonly ring: LogRing,
    now: number,
  ) {
    this.since = now;
  }
}

/** True when an OpenAI `/v1/models` body lists `model` (by id). */
export function listsModel(body: string, model: string): boolean {
  try {
    const j = JSON.parse(body) as { data?: Array<{ id?: string }> };
    return Array.isArray(j.data) && j.data.some((m) => m?.id === model);
  } catch {
    return false;
  }
}

/** The spec as the agent reports it: everything but the engine secret. */
export function withoutSecret(spec: agentV1.ShardSpec__Output): agentV1.ShardSpec__Output {
  return spec.apiKey ? { ...spec, apiKey: '' } : spec;
}

/** Runs an engine's cleanup command; resolves when it exits or fails, or after 30 s. */
export function runCleanup(argv: string[]): Promise<void> {
  return new Promise((resolve) => {
    try {
      const c = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
      const t = setTimeout(() => {
        c.kill('SIGKILL');
        resolve();
      }, 30_000);
      c.once('error', () => {
        clearTimeout(t);
        resolve();
      });
      c.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    } catch {
      resolve();
    }
  });
}
