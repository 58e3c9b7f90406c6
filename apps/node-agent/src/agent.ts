import { AgentStreamClient, type AgentSend, type AgentStreamState } from '@llmgw/agent-rpc';
import type { agentV1 } from '@llmgw/contracts';
import { createLogger, type Logger } from '@llmgw/observability';
import { clientTls } from '@llmgw/service';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { AgentConfig } from './config';
import { discover, queryGpus, type Discovery } from './discovery/discover';
import { rowToHealth } from './discovery/nvidia-smi';
import { HostSensorReader } from './discovery/sensors';
import { enginesFromConfig } from './engines/adapters';
import { checkEngine, type EngineCheck } from './engines/check';
import type { Engine, EngineKind, NodeContext } from './engines/engine';
import { LogRing } from './supervisor/log-ring';
import { WeightsCache } from './weights/cache';
import { weightsInUse } from './supervisor/weights-step';
import { Supervisor } from './supervisor/supervisor';

export const AGENT_VERSION = '0.1.0';

/** Largest text per LogsReply chunk (LogsReply documents 64 KiB). */
const CHUNK_BYTES = 64 * 1024;

export interface StartAgentOptions {
  /**
   * The logger (the service host's). Its lines should also reach `agentLog`
   * (see `teeToRing`) for LOG_SOURCE_AGENT requests. Without it the agent
   * makes its own, writing to `logDestination` (stdout) and the ring.
   */
  log?: Logger;
  /** The ring of the agent's own log lines. */
  agentLog?: LogRing;
  logDestination?: NodeJS.WritableStream;
  /** Stream state changes (tests, `llmgw up`). */
  onStreamState?: (state: AgentStreamState) => void;
  /** Inventory's loss and return (the service host's `ctx.dependency`: one warn line each); without it every disconnect is a warn line. */
  dependency?: { lost(err: unknown): void; ok(): void };
}

/** A running agent. `close()` leaves engines running: the next agent re-adopts them. */
export interface AgentHandle {
  config: AgentConfig;
  discovery: Discovery;
  supervisor: Supervisor;
  stream: AgentStreamClient;
  engineChecks: EngineCheck[];
  log: Logger;
  /** Stops every engine (for `--stop-engines-on-exit` and tests). */
  stopEngines(graceMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A pino destination that also keeps the last lines for LOG_SOURCE_AGENT requests. */
export function teeToRing(ring: LogRing, out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk, _enc, cb) {
      const text = String(chunk);
      for (const line of text.split('\n')) if (line) ring.push('LOG_STREAM_STDOUT', line, Date.now());
      out.write(chunk, cb);
    },
  });
}

/** Reads TLS material named in agent.yaml (through the service host); a missing file is a clear error at boot. */
function loadTls(cfg: AgentConfig) {
  return clientTls(cfg.tls, 'tls');
}

/**
 * Starts the agent from a frozen config: discovery, engine checks,
 * re-adoption of engines a previous agent left running, then the stream to
 * inventory (Register, heartbeats, shard status, engine stats, commands).
 */
export async function startAgent(config: AgentConfig, opts: StartAgentOptions = {}): Promise<AgentHandle> {
  if (!config.server) throw new Error('server is required (agent.yaml `server:` or --server host:port)');
  const ring = opts.agentLog ?? new LogRing(config.log_ring_lines);
  const log =
    opts.log ??
    createLogger({
      service: 'node-agent',
      version: AGENT_VERSION,
      level: config.log_level,
      destination: teeToRing(ring, opts.logDestination ?? process.stdout),
    });
  const tls = loadTls(config);

  const discovery = await discover({
    nodeId: config.node_id,
    nvidiaSmi: config.nvidia_smi,
    sysfsRoot: config.sysfs_root,
    fakeGpus: config.fake_gpus,
    fabrics: config.fabrics,
    fabricPrefixes: config.fabric_prefixes,
    gpuClass: config.gpu_class,
    modelCacheDir: config.model_cache_dir ?? join(config.work_dir, 'models'),
    mgmtInterface: config.mgmt_interface,
    labels: config.labels,
    agentVersion: AGENT_VERSION,
  });
  if (config.mgmt_addr) discovery.node.mgmtAddr = config.mgmt_addr;
  for (const w of discovery.warnings) log.warn({ warning: w }, 'discovery');
  log.info(
    {
      nodeId: discovery.node.nodeId,
      gpus: discovery.node.gpus.length,
      fabrics: discovery.node.fabrics.map((f) => f.fabric),
      simulated: discovery.node.simulated,
    },
    'discovered node',
  );

  const engines = enginesFromConfig(config.engines);
  const engineChecks = await Promise.all([...engines.values()].map((e) => checkEngine(e)));
  for (const c of engineChecks)
    (c.error ? log.warn.bind(log) : log.info.bind(log))(
      { engine: c.engine, version: c.version, binary: c.binary, error: c.error || undefined },
      'engine-check',
    );
  const checkByKind = new Map<EngineKind, EngineCheck>(engineChecks.map((c) => [c.engine, c]));
  discovery.node.versions!.engines = engineChecks.map((c) => ({ engine: c.engine, version: c.version, binary: c.resolved ?? c.binary, error: c.error }));

  const node: NodeContext = {
    mgmtAddr: discovery.node.mgmtAddr,
    mgmtInterface: config.mgmt_interface,
    fabrics: discovery.node.fabrics,
    gpuIndices: discovery.node.gpus.map((g) => g.index),
    bindHost: config.engine_bind_host,
  };
  let send: AgentSend = () => false;
  const cacheDir = config.model_cache_dir ?? join(config.work_dir, 'models');
  const mc = config.model_cache;
  const weights = new WeightsCache({
    dir: cacheDir,
    minFreeBytes: mc.min_free,
    bytesPerSecond: mc.bandwidth,
    parallelFiles: mc.parallel_files,
    log,
    // A model a live shard uses is never reclaimed.
    inUse: () => weightsInUse(supervisor.running().flatMap((st) => (st.spec ? [st.spec] : []))),
  });
  const supervisor: Supervisor = new Supervisor({
    workDir: config.work_dir,
    engines,
    node,
    logRingLines: config.log_ring_lines,
    log,
    weights: { cache: weights, dir: cacheDir },
    timings: {
      healthIntervalMs: config.health_interval,
      stopGraceMs: config.stop_grace,
      drainTimeoutMs: config.drain_timeout,
      drainSettleMs: config.drain_settle,
      startupTimeoutMs: config.startup_timeout,
      maxRestarts: config.max_restarts,
      restartBackoffMs: config.restart_backoff,
      restartBackoffMaxMs: config.restart_backoff_max,
    },
    // The check made at boot answers the first launch; a failed one is re-run (the engine may have been installed since).
    preflight: async (e: Engine) => {
      const first = checkByKind.get(e.kind);
      checkByKind.delete(e.kind);
      return (first && !first.error ? first : await checkEngine(e)).error;
    },
    onStatus: (s) => {
      send({ shard: s });
    },
  });
  const adoption = supervisor.adopt();
  for (const p of adoption.problems) log.warn({ problem: p }, 'unreadable shard record');
  if (adoption.adopted.length || adoption.failed.length) log.info(adoption, 're-adopted engines from the state directory');

  let gpuHealth = discovery.gpuHealth;
  let refreshing = false;
  const refreshHealth = async () => {
    if (refreshing || discovery.node.simulated || !discovery.node.gpus.length) return;
    refreshing = true;
    const q = await queryGpus(config.nvidia_smi, 10_000).finally(() => {
      refreshing = false;
    });
    const used = supervisor.gpusInUse();
    if (q.rows.length)
      gpuHealth = q.rows.map((r) => {
        const h = rowToHealth(r);
        // Memory on a GPU our shards run on is theirs; on any other GPU it is foreign.
        return used.has(h.index) ? rowToHealth(r, h.memoryUsedMib) : h;
      });
  };

  const onCommand = (m: agentV1.ControlMessage__Output, reply: AgentSend) => {
    const ack = (refId: string, shardId: string, o: { result: agentV1.Ack['result']; errorCode?: string; message?: string }) =>
      reply({ ack: { refId, shardId, result: o.result, errorCode: o.errorCode ?? '', message: o.message ?? '' } });
    switch (m.msg) {
      case 'start': {
        const spec = m.start!.spec;
        if (!spec)
          return ack(m.start!.commandId, '', {
            result: 'ACK_RESULT_REJECTED',
            errorCode: 'LLMGW_ERR_INVALID_ARGUMENT',
            message: 'StartShard.spec is required',
          });
        log.info({ shardId: spec.shardId, engine: spec.engine, model: spec.model, commandId: m.start!.commandId }, 'StartShard');
        return ack(m.start!.commandId, spec.shardId, supervisor.start(spec));
      }
      case 'stop':
        log.info({ shardId: m.stop!.shardId, reason: m.stop!.reason, commandId: m.stop!.commandId }, 'StopShard');
        return ack(m.stop!.commandId, m.stop!.shardId, supervisor.stop(m.stop!.shardId, m.stop!.graceMs, m.stop!.reason));
      case 'drain':
        log.info({ shardId: m.drain!.shardId, reason: m.drain!.reason, commandId: m.drain!.commandId }, 'DrainShard');
        return ack(m.drain!.commandId, m.drain!.shardId, supervisor.drain(m.drain!.shardId, m.drain!.timeoutMs, m.drain!.reason));
      case 'logs':
        return answerLogs(m.logs!, reply);
      default:
        return;
    }
  };

  const answerLogs = (req: agentV1.LogsRequest__Output, reply: AgentSend) => {
    const tail = Math.min(req.tailLines || 100, config.log_ring_lines);
    const since = Number(req.sinceMs) || 0;
    let got: ReturnType<LogRing['read']> | undefined;
    if (req.source === 'LOG_SOURCE_AGENT') got = ring.read(tail, since);
    else if (req.source === 'LOG_SOURCE_SHARD') got = supervisor.logs(req.shardId, tail, since);
    if (!got) {
      const [code, msg] =
        req.source === 'LOG_SOURCE_SHARD'
          ? ['LLMGW_ERR_NOT_FOUND', `shard ${req.shardId} is not known here`]
          : ['LLMGW_ERR_INVALID_ARGUMENT', 'source must be LOG_SOURCE_AGENT or LOG_SOURCE_SHARD'];
      reply({ logs: { requestId: req.requestId, seq: 0, lines: [], eof: true, errorCode: code, errorMessage: msg } });
      return;
    }
    let seq = 0;
    let chunk: agentV1.LogLine__Output[] = [];
    let bytes = 0;
    const flush = (eof: boolean) => {
      reply({ logs: { requestId: req.requestId, seq: seq++, lines: chunk, eof, truncated: eof && got!.truncated } });
      chunk = [];
      bytes = 0;
    };
    for (const l of got.lines) {
      if (bytes + l.text.length > CHUNK_BYTES && chunk.length) flush(false);
      chunk.push(l);
      bytes += l.text.length;
    }
    flush(true);
  };

  const sensors = new HostSensorReader(config.sysfs_root);
  const stream = new AgentStreamClient({
    address: config.server,
    tls,
    heartbeatIntervalMs: config.heartbeat_interval,
    register: () => ({ node: discovery.node, runningShards: supervisor.running(), gpuHealth }),
    heartbeat: () => {
      void refreshHealth();
      const host = sensors.read();
      for (const w of host.warnings) log.warn({ sysfs: config.sysfs_root }, w);
      return {
        gpus: gpuHealth,
        shards: supervisor.list(),
        host: { cpuTemperatureCelsius: host.sensors.cpuTemperatureCelsius ?? 0, cpuPowerWatts: host.sensors.cpuPowerWatts ?? 0 },
      };
    },
    onCommand,
    log,
    onState: (s, info) => {
      if (s === 'registered') log.info({ server: config.server, sessionId: stream.sessionId }, 'registered with inventory');
      if (s === 'registered') opts.dependency?.ok();
      else if (s === 'disconnected' && opts.dependency) {
        opts.dependency.lost(info.error ?? new Error('stream closed'));
        log.debug(
          { server: config.server, code: info.error?.code, err: info.error?.message, retryInMs: info.nextRetryMs },
          'inventory unreachable; engines keep running',
        );
      } else if (s === 'disconnected')
        log.warn(
          { server: config.server, code: info.error?.code, err: info.error?.message, retryInMs: info.nextRetryMs },
          'inventory unreachable; engines keep running',
        );
      // 'refused' (wrong certificate for this node_id, wrong role): the stream client says so at error, with the reason.
      opts.onStreamState?.(s);
    },
  });
  send = stream.send;
  stream.start();

  let scraping = false;
  const statsTimer = setInterval(() => {
    if (scraping || stream.state !== 'registered') return;
    scraping = true;
    supervisor
      .scrape()
      .then(
        (all) => {
          for (const s of all) send({ stats: s });
        },
        () => {},
      )
      .finally(() => {
        scraping = false;
      });
  }, config.stats_interval);

  let closing: Promise<void> | undefined;
  return {
    config,
    discovery,
    supervisor,
    stream,
    engineChecks,
    log,
    stopEngines: (graceMs) => supervisor.stopAll(graceMs ?? config.stop_grace),
    close() {
      closing ??= (async () => {
        clearInterval(statsTimer);
        supervisor.close();
        await stream.close();
        log.info({ engines: supervisor.running().length }, 'agent stopped; engines keep running');
      })();
      return closing;
    },
  };
}
