import { type agentV1, isTerminalShardState } from '@llmgw/contracts';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Engine, EngineCommand, EngineKind } from '../engines/engine';
import { LogRing } from './log-ring';
import { FileTail } from './log-tail';
import { groupAlive, groupMembers, readProcStat, signalGroup } from './proc';
import { StateStore } from './state-store';
import { admit } from './admission';
import { httpGet } from './http-get';
import { type CommandOutcome, Shard, type State, type SupervisorOptions, listsModel, runCleanup } from './shard';
import { shardRecord, shardStatus } from './shard-snapshot';
import { scrapeShard } from './engine-stats';
import { engineSpec, fetchWeights, specMirrors } from './weights-step';
import { formatProgress } from '../weights/progress';

export { listsModel, withoutSecret } from './shard';
export type { CommandOutcome, SupervisorOptions, SupervisorTimings } from './shard';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs engine processes for shards (docs/node-agent.md#shard-states). Each engine leads its own
 * process group and writes to files in the state directory (never to pipes
 * the agent holds), so an agent restart leaves engines untouched; the new
 * agent re-adopts them from their records (pid, pgid and start time checked
 * against /proc). States: PENDING → STARTING → LOADING → READY → DRAINING →
 * STOPPED | FAILED, each change with its reason.
 */
export class Supervisor {
  private readonly shards = new Map<string, Shard>();
  private readonly store: StateStore;
  private readonly now: () => number;
  private readonly checked = new Map<EngineKind, Promise<string>>();
  private tailTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: SupervisorOptions) {
    this.store = new StateStore(opts.workDir);
    this.now = opts.now ?? Date.now;
    this.tailTimer = setInterval(() => this.pollTails(), 250);
    this.tailTimer.unref();
  }

  /** Every shard: the running ones and those that ended since the agent started (with their reason). */
  list(opts: { withSpec?: boolean } = {}): agentV1.ShardStatus__Output[] {
    return [...this.shards.values()].map((s) => shardStatus(s, opts.withSpec ?? false));
  }

  /** Non-terminal shards, for Register. */
  running(): agentV1.ShardStatus__Output[] {
    return [...this.shards.values()].filter((s) => !isTerminalShardState(s.state)).map((s) => shardStatus(s, true));
  }

  get(shardId: string): agentV1.ShardStatus__Output | undefined {
    const s = this.shards.get(shardId);
    return s && shardStatus(s, false);
  }

  /** GPU indices held by live shards. */
  gpusInUse(): Set<number> {
    return new Set([...this.shards.values()].filter((s) => !isTerminalShardState(s.state)).flatMap((s) => s.spec.gpuIndices));
  }

  /** The last lines of one shard's output. */
  logs(shardId: string, tail: number, sinceMs = 0): { lines: agentV1.LogLine__Output[]; truncated: boolean } | undefined {
    const s = this.shards.get(shardId);
    if (!s) return undefined;
    for (const t of s.tails) t.poll();
    return s.ring.read(tail, sinceMs);
  }

  // ---- commands -------------------------------------------------------

  /** StartShard: idempotent by shard id while the shard is not terminal. */
  start(spec: agentV1.ShardSpec__Output): CommandOutcome {
    const existing = this.shards.get(spec.shardId);
    if (existing && !isTerminalShardState(existing.state)) return { result: 'ACK_RESULT_ALREADY_DONE', message: `shard ${spec.shardId} is ${existing.state}` };
    const admitted = admit(
      spec,
      this.opts,
      [...this.shards.values()].filter((s) => !isTerminalShardState(s.state)),
    );
    if ('rejected' in admitted) return admitted.rejected;
    const { engine } = admitted;
    const cmd = engine.build(engineSpec(spec, this.opts.weights?.dir), this.opts.node);
    const shard = new Shard(spec, engine, cmd, new LogRing(this.opts.logRingLines), this.now());
    this.shards.set(spec.shardId, shard);
    this.store.removeLogs(spec.shardId);
    this.transition(shard, 'SHARD_STATE_PENDING', 'accepted');
    void this.preflightThenLaunch(shard);
    return { result: 'ACK_RESULT_ACCEPTED' };
  }

  /** StopShard: SIGTERM to the group, `graceMs`, SIGKILL. Unknown or finished shards are ALREADY_DONE. */
  stop(shardId: string, graceMs = 0, reason = ''): CommandOutcome {
    const s = this.shards.get(shardId);
    if (!s || isTerminalShardState(s.state))
      return { result: 'ACK_RESULT_ALREADY_DONE', message: s ? `shard ${shardId} is ${s.state}` : `shard ${shardId} is not running here` };
    if (s.stopping) return { result: 'ACK_RESULT_ALREADY_DONE', message: `shard ${shardId} is already stopping` };
    s.stopping = this.doStop(s, graceMs || this.opts.timings.stopGraceMs, reason || 'requested');
    return { result: 'ACK_RESULT_ACCEPTED' };
  }

  /** Resolves when the shard has stopped (or at once when it is not stopping). */
  async stopped(shardId: string): Promise<void> {
    await this.shards.get(shardId)?.stopping;
  }

  /** DrainShard: DRAINING until StopShard; reports when requests in flight reach zero or the timeout passes. */
  drain(shardId: string, timeoutMs = 0, reason = ''): CommandOutcome {
    const s = this.shards.get(shardId);
    if (!s) return { result: 'ACK_RESULT_REJECTED', errorCode: 'LLMGW_ERR_NOT_FOUND', message: `shard ${shardId} is not running here` };
    if (s.state === 'SHARD_STATE_DRAINING') return { result: 'ACK_RESULT_ALREADY_DONE', message: `shard ${shardId} is already draining` };
    if (isTerminalShardState(s.state) || s.stopping)
      return { result: 'ACK_RESULT_REJECTED', errorCode: 'LLMGW_ERR_FAILED_PRECONDITION', message: `shard ${shardId} is ${s.stopping ? 'stopping' : s.state}` };
    s.draining = true;
    this.transition(s, 'SHARD_STATE_DRAINING', `draining${reason ? `: ${reason}` : ''}`);
    void this.watchDrain(s, timeoutMs || this.opts.timings.drainTimeoutMs);
    return { result: 'ACK_RESULT_ACCEPTED' };
  }

  // ---- adoption -------------------------------------------------------

  /**
   * Re-adopts the engines a previous agent process left running. A record
   * whose pid is gone, or now names another process (start time or pgid
   * differ), is not adopted: what is left of its group is killed, its
   * cleanup runs, and the shard is reported FAILED with the reason.
   */
  adopt(): { adopted: string[]; failed: string[]; problems: string[] } {
    const { records, problems } = this.store.load();
    const adopted: string[] = [];
    const failed: string[] = [];
    for (const rec of records) {
      const engine = this.opts.engines.get(rec.spec.engine as EngineKind);
      if (isTerminalShardState(rec.state) || this.shards.has(rec.spec.shardId)) {
        this.store.remove(rec.spec.shardId);
        continue;
      }
      const cmd: EngineCommand = engine
        ? engine.build(engineSpec(rec.spec, this.opts.weights?.dir), this.opts.node)
        : { argv: rec.argv, env: {}, cleanup: rec.cleanup, servedModelName: rec.spec.servedModelName || rec.spec.model };
      const shard = new Shard(rec.spec, engine as Engine, cmd, new LogRing(this.opts.logRingLines), rec.stateSinceMs);
      shard.restarts = rec.restarts;
      shard.launchedAtMs = rec.launchedAtMs;
      shard.adopted = true;
      const st = rec.pid ? readProcStat(rec.pid) : undefined;
      const ours = st !== undefined && st.startTime === rec.startTime && st.pgid === rec.pgid;
      this.shards.set(rec.spec.shardId, shard);
      this.attachTails(shard, true);
      if (ours && engine) {
        shard.pid = rec.pid;
        shard.pgid = rec.pgid;
        shard.startTime = rec.startTime;
        shard.state = rec.state === 'SHARD_STATE_PENDING' ? 'SHARD_STATE_STARTING' : rec.state;
        shard.since = rec.stateSinceMs;
        shard.draining = rec.state === 'SHARD_STATE_DRAINING';
        shard.message = `adopted from a previous agent process (pid ${rec.pid}); ${rec.message}`;
        this.persist(shard);
        this.emit(shard);
        this.scheduleProbe(shard);
        adopted.push(rec.spec.shardId);
        this.opts.log?.info({ shardId: rec.spec.shardId, pid: rec.pid, state: shard.state }, 'adopted running engine');
        continue;
      }
      const why = !engine
        ? `engine ${rec.spec.engine} is no longer configured`
        : !rec.pid || st === undefined
          ? `engine process ${rec.pid} exited while the agent was down`
          : `pid ${rec.pid} now belongs to another process (start time or process group differ); not adopted`;
      // What is left of the old group (e.g. children of a dead leader) started no earlier than the leader.
      const leftovers = rec.pgid > 1 && (st === undefined || !ours) ? groupMembers(rec.pgid).filter((m) => m.startTime >= rec.startTime) : [];
      if (leftovers.length && (st === undefined || st.pgid !== rec.pgid)) signalGroup(rec.pgid, 'SIGKILL');
      if (cmd.cleanup) void runCleanup(cmd.cleanup);
      shard.exited = true;
      shard.exitCode = -1;
      this.transition(shard, 'SHARD_STATE_FAILED', why);
      failed.push(rec.spec.shardId);
    }
    return { adopted, failed, problems };
  }

  // ---- engine stats -----------------------------------------------------

  /** Scrapes /metrics of every READY (or DRAINING) leader shard. */
  async scrape(timeoutMs = 2_000): Promise<agentV1.EngineStats__Output[]> {
    const targets = [...this.shards.values()].filter((s) => (s.state === 'SHARD_STATE_READY' || s.state === 'SHARD_STATE_DRAINING') && s.cmd.metricsUrl);
    return Promise.all(targets.map((s) => scrapeShard(s, timeoutMs, this.now)));
  }

  // ---- lifecycle ----------------------------------------------------------

  /** Stops watching; engines keep running (the next agent adopts them). */
  close(): void {
    this.closed = true;
    clearInterval(this.tailTimer);
    for (const s of this.shards.values()) {
      clearTimeout(s.probeTimer);
      s.child?.removeAllListeners('exit');
      s.child?.unref();
    }
  }

  /** Stops every live shard and waits (tests, `node-agent --stop-engines-on-exit`). */
  async stopAll(graceMs = 5_000): Promise<void> {
    for (const s of this.shards.values()) if (!isTerminalShardState(s.state) && !s.stopping) s.stopping = this.doStop(s, graceMs, 'agent stopping');
    await Promise.all([...this.shards.values()].map((s) => s.stopping));
  }

  // ---- internals ----------------------------------------------------------

  private emit(s: Shard): void {
    const withSpec = !s.specSent;
    s.specSent = true;
    this.opts.onStatus?.(shardStatus(s, withSpec));
  }

  private transition(s: Shard, state: State, message: string): void {
    const changed = s.state !== state || s.message !== message;
    if (s.state !== state) s.since = this.now();
    s.state = state;
    s.message = message;
    this.opts.log?.info({ shardId: s.spec.shardId, state, reason: message }, 'shard state');
    if (isTerminalShardState(state)) {
      clearTimeout(s.probeTimer);
      this.store.remove(s.spec.shardId);
    } else if (s.pid) this.persist(s);
    if (changed) this.emit(s);
  }

  private persist(s: Shard): void {
    this.store.save(shardRecord(s));
  }

  private async preflightThenLaunch(s: Shard): Promise<void> {
    if (this.opts.preflight) {
      let p = this.checked.get(s.engine.kind);
      if (!p) {
        p = this.opts.preflight(s.engine).catch((e) => `engine-check failed: ${(e as Error).message}`);
        this.checked.set(s.engine.kind, p);
      }
      const err = await p;
      if (err) {
        // A failed check is not cached: the operator may install the engine and retry.
        this.checked.delete(s.engine.kind);
        if (!s.stopping && !isTerminalShardState(s.state)) this.transition(s, 'SHARD_STATE_FAILED', `engine-check: ${err}`);
        return;
      }
    }
    const w = this.opts.weights;
    if (w && specMirrors(s.spec).length && !s.stopping && !isTerminalShardState(s.state)) {
      const why = await fetchWeights(s.spec, w.cache, {
        downloading: (m) => this.transition(s, 'SHARD_STATE_DOWNLOADING', m),
        progress: (p) => {
          s.download = p;
          s.message = `downloading weights: ${formatProgress(p)}`;
          this.emit(s);
        },
        wanted: () => !s.stopping && !isTerminalShardState(s.state),
        progressEveryMs: w.progressEveryMs ?? 1_000,
      });
      if (why && !s.stopping && !isTerminalShardState(s.state)) return this.transition(s, 'SHARD_STATE_FAILED', why);
    }
    if (s.stopping || isTerminalShardState(s.state) || this.closed) return;
    this.launch(s);
  }

  private attachTails(s: Shard, fromTail: boolean): void {
    s.tails = [
      new FileTail(this.store.path(s.spec.shardId, 'stdout.log'), 'LOG_STREAM_STDOUT', s.ring, this.now),
      new FileTail(this.store.path(s.spec.shardId, 'stderr.log'), 'LOG_STREAM_STDERR', s.ring, this.now),
    ];
    if (fromTail) for (const t of s.tails) t.seekToTail();
  }

  private pollTails(): void {
    for (const s of this.shards.values()) if (!isTerminalShardState(s.state) || s.exited) for (const t of s.tails) t.poll();
  }

  private launch(s: Shard): void {
    if (!s.tails.length) this.attachTails(s, false);
    const out = openSync(this.store.path(s.spec.shardId, 'stdout.log'), 'a', 0o600);
    const err = openSync(this.store.path(s.spec.shardId, 'stderr.log'), 'a', 0o600);
    let child: ChildProcess;
    try {
      child = spawn(s.cmd.argv[0], s.cmd.argv.slice(1), { detached: true, stdio: ['ignore', out, err], env: { ...process.env, ...s.cmd.env } });
    } catch (e) {
      this.transition(s, 'SHARD_STATE_FAILED', `cannot launch ${s.cmd.argv[0]}: ${(e as Error).message}`);
      return;
    } finally {
      closeSync(out);
      closeSync(err);
    }
    s.child = child;
    s.exited = false;
    // Whatever was adopted before, this process is our own child.
    s.adopted = false;
    child.once('error', (e) => {
      if (!s.pid || !readProcStat(s.pid)) this.onExit(s, child, null, null, `cannot launch ${s.cmd.argv[0]}: ${e.message}`);
    });
    child.once('exit', (code, signal) => this.onExit(s, child, code, signal));
    if (!child.pid) return; // 'error' follows
    s.pid = child.pid;
    s.pgid = child.pid;
    s.startTime = readProcStat(child.pid)?.startTime ?? 0;
    s.launchedAtMs = this.now();
    this.transition(s, 'SHARD_STATE_STARTING', `launched pid ${child.pid}${s.restarts ? ` (restart ${s.restarts})` : ''}`);
    this.scheduleProbe(s);
  }

  private scheduleProbe(s: Shard, delay = this.opts.timings.healthIntervalMs): void {
    clearTimeout(s.probeTimer);
    if (this.closed || isTerminalShardState(s.state)) return;
    s.probeTimer = setTimeout(() => void this.probe(s), delay);
  }

  private async probe(s: Shard): Promise<void> {
    if (this.closed || isTerminalShardState(s.state) || s.stopping) return;
    // An adopted engine is not our child: its exit shows only in /proc.
    if (!s.child && s.pid) {
      const st = readProcStat(s.pid);
      if (!st || st.startTime !== s.startTime) return this.onExit(s, undefined, null, null);
    }
    if (s.state === 'SHARD_STATE_STARTING' || s.state === 'SHARD_STATE_LOADING') {
      const limit = Number(s.spec.startupTimeoutMs) || this.opts.timings.startupTimeoutMs;
      if (this.now() - s.launchedAtMs > limit) {
        s.stopping = this.doStop(
          s,
          this.opts.timings.stopGraceMs,
          '',
          `not ready within ${Math.round(limit / 1000)} s (${s.state === 'SHARD_STATE_STARTING' ? '/health never answered' : `/v1/models never listed ${s.cmd.servedModelName}`})`,
        );
        return;
      }
      if (!s.cmd.healthUrl) {
        this.transition(s, 'SHARD_STATE_READY', 'worker process running');
      } else {
        const timeoutMs = Math.max(500, Math.min(5_000, this.opts.timings.healthIntervalMs * 2));
        const h = await httpGet(s.cmd.healthUrl, timeoutMs);
        if (s.stopping || isTerminalShardState(s.state)) return;
        if (h && s.state === 'SHARD_STATE_STARTING') this.transition(s, 'SHARD_STATE_LOADING', `/health answers ${h.status}`);
        if (h?.status === 200) {
          const m = await httpGet(s.cmd.modelsUrl!, timeoutMs, s.cmd.apiKey);
          if (s.stopping || isTerminalShardState(s.state)) return;
          const listed = m?.status === 200 && listsModel(m.body, s.cmd.servedModelName);
          if (listed) this.transition(s, 'SHARD_STATE_READY', `serving ${s.cmd.servedModelName}`);
        }
      }
    }
    this.scheduleProbe(s);
  }

  private onExit(s: Shard, child: ChildProcess | undefined, code: number | null, signal: NodeJS.Signals | null, launchError?: string): void {
    if (child && s.child !== child) return;
    s.child = undefined;
    s.exited = true;
    s.exitCode = code ?? -1;
    clearTimeout(s.probeTimer);
    for (const t of s.tails) t.poll();
    if (s.stopping || isTerminalShardState(s.state) || this.closed) return; // doStop reports
    const how = launchError ?? (code !== null ? `exited with code ${code}` : signal ? `killed by ${signal}` : `process ${s.pid} is gone`);
    // A crash leaves nothing behind: the rest of the group goes too.
    signalGroup(s.pgid, 'SIGKILL');
    if (s.cmd.cleanup) void runCleanup(s.cmd.cleanup);
    const multi = Math.max(1, s.spec.nnodes) > 1;
    if (!launchError && !multi && !s.draining && s.restarts < this.opts.timings.maxRestarts) {
      s.restarts++;
      const delay = Math.min(this.opts.timings.restartBackoffMaxMs, this.opts.timings.restartBackoffMs * 2 ** (s.restarts - 1));
      this.transition(s, 'SHARD_STATE_PENDING', `${how}; restart ${s.restarts} of ${this.opts.timings.maxRestarts} in ${delay} ms`);
      s.probeTimer = setTimeout(() => {
        if (!s.stopping && !this.closed && s.state === 'SHARD_STATE_PENDING') this.launch(s);
      }, delay);
      return;
    }
    const tail = multi ? ' (one shard of a multi-node replica: the replica must be rebuilt)' : s.restarts ? ` after ${s.restarts} restarts` : '';
    this.transition(s, 'SHARD_STATE_FAILED', `${how}${tail}`);
  }

  private async doStop(s: Shard, graceMs: number, reason: string, failWith?: string): Promise<void> {
    clearTimeout(s.probeTimer);
    if (s.pgid && groupAlive(s.pgid)) {
      signalGroup(s.pgid, 'SIGTERM');
      const deadline = Date.now() + graceMs;
      while (groupAlive(s.pgid) && Date.now() < deadline) await sleep(50);
      if (groupAlive(s.pgid)) {
        this.opts.log?.warn({ shardId: s.spec.shardId, pgid: s.pgid, graceMs }, 'engine ignored SIGTERM; SIGKILL');
        signalGroup(s.pgid, 'SIGKILL');
        const hard = Date.now() + 10_000;
        while (groupAlive(s.pgid) && Date.now() < hard) await sleep(50);
      }
    }
    if (s.cmd.cleanup) await runCleanup(s.cmd.cleanup);
    for (const t of s.tails) t.poll();
    s.exited = s.pid !== 0;
    if (failWith) this.transition(s, 'SHARD_STATE_FAILED', failWith);
    else this.transition(s, 'SHARD_STATE_STOPPED', `stopped: ${reason}`);
  }

  private async watchDrain(s: Shard, timeoutMs: number): Promise<void> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    // Routers hear of the drain through the endpoint records, a moment after it began: until then an idle engine may still be sent a request.
    const settled = started + Math.min(this.opts.timings.drainSettleMs ?? 0, timeoutMs);
    let inFlight = -1;
    while (s.state === 'SHARD_STATE_DRAINING' && !s.stopping && !this.closed) {
      if (!s.cmd.metricsUrl) {
        s.drained = true;
        this.transition(s, 'SHARD_STATE_DRAINING', 'drained (a worker serves no requests)');
        return;
      }
      const st = await scrapeShard(s, 2_000, this.now);
      inFlight = st.error && !st.scrapedAtMs ? inFlight : st.running + st.waiting;
      if (inFlight === 0 && Date.now() >= settled) {
        s.drained = true;
        this.transition(s, 'SHARD_STATE_DRAINING', 'drained: no requests in flight');
        return;
      }
      if (Date.now() >= deadline) {
        s.drained = true;
        this.transition(
          s,
          'SHARD_STATE_DRAINING',
          `drain timed out after ${timeoutMs} ms with ${inFlight < 0 ? 'an unknown number of' : inFlight} requests in flight`,
        );
        return;
      }
      await sleep(this.opts.timings.healthIntervalMs);
    }
  }
}
