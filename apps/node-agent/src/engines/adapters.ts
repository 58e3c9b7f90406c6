import type { agentV1 } from '@llmgw/contracts';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { llamaCppLoraArgs, sglangLoraArgs, vllmLoraArgs } from './lora-args';
import { baseEnv, commonProblems, probes, servedName, type Engine, type EngineCommand, type EngineKind, type EngineProbe, type NodeContext } from './engine';

/** Where engines bind: the node's management address unless agent.yaml `engine_bind_host` says otherwise. */
const bindHost = (node: NodeContext) => node.bindHost ?? node.mgmtAddr;

/** tcp://host:port for a ZMQ socket on the bind address ("*" for every interface). */
const zmqAddr = (host: string, port: number) => `tcp://${host === '0.0.0.0' || host === '::' ? '*' : host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * vLLM's `--kv-events-config` (KVEventsConfig: enable_kv_cache_events,
 * publisher, endpoint, replay_endpoint, topic) on the spec's ports; SGLang
 * reads the same keys but enables publishing by the flag alone, without
 * `enable_kv_cache_events`. Undefined when the spec has no KV-event port.
 */
function kvEventsJson(spec: agentV1.ShardSpec__Output, node: NodeContext, dialect: 'vllm' | 'sglang'): string | undefined {
  if (!spec.kvEventsPort) return undefined;
  const host = bindHost(node);
  return JSON.stringify({
    ...(dialect === 'vllm' ? { enable_kv_cache_events: true } : {}),
    publisher: 'zmq',
    endpoint: zmqAddr(host, spec.kvEventsPort),
    ...(spec.kvReplayPort ? { replay_endpoint: zmqAddr(host, spec.kvReplayPort) } : {}),
    topic: '',
  });
}

/**
 * The vLLM-dialect contract flags (vLLM and sim-engine): batch slots,
 * scheduling policy, KV events. The engine secret goes in `VLLM_API_KEY`
 * (vLLM reads it when `--api-key` is absent), so it is not on the command
 * line `ps` shows.
 */
function vllmContract(spec: agentV1.ShardSpec__Output, node: NodeContext, env: Record<string, string>): string[] {
  const out: string[] = [];
  if (spec.maxNumSeqs) out.push('--max-num-seqs', String(spec.maxNumSeqs));
  if (spec.schedulingPolicy) out.push('--scheduling-policy', spec.schedulingPolicy);
  const kv = kvEventsJson(spec, node, 'vllm');
  if (kv) out.push('--kv-events-config', kv);
  if (spec.apiKey) env.VLLM_API_KEY = spec.apiKey;
  out.push(...vllmLoraArgs(spec));
  return out;
}

const parallel = (spec: agentV1.ShardSpec__Output) => ({
  tp: Math.max(1, spec.tensorParallel || spec.gpuIndices.length || 1),
  pp: Math.max(1, spec.pipelineParallel || 1),
  nnodes: Math.max(1, spec.nnodes),
});

const firstVersion = (out: string) => /(\d+\.\d+(?:\.\d+)?(?:[.+-][\w.]+)?)/.exec(out)?.[1] ?? out.trim().split('\n')[0] ?? '';

/**
 * vLLM (`vllm serve`). Single node: one process. Multi-node, launch_mode
 * `mp` (vLLM's own multi-node launch): every rank runs `vllm serve` with
 * `--nnodes --node-rank --master-addr --master-port`, workers add
 * `--headless`. launch_mode `ray`: rank 0 starts a Ray head then
 * `vllm serve --distributed-executor-backend ray`; workers run `ray start
 * --block --address`; `ray stop --force` cleans up after either.
 */
export class VllmEngine implements Engine {
  readonly kind: EngineKind = 'vllm';
  constructor(private readonly cfg: { bin: string; launch_mode: 'mp' | 'ray'; ray_bin?: string } = { bin: 'vllm', launch_mode: 'mp' }) {}

  private mode(spec: agentV1.ShardSpec__Output): 'mp' | 'ray' {
    return (spec.launchMode as 'mp' | 'ray') || this.cfg.launch_mode;
  }

  private ray(): string {
    if (this.cfg.ray_bin) return this.cfg.ray_bin;
    return this.cfg.bin.includes('/') ? join(dirname(this.cfg.bin), 'ray') : 'ray';
  }

  validate(spec: agentV1.ShardSpec__Output, node: NodeContext): string[] {
    const p = commonProblems(spec, node);
    if (spec.launchMode && !['mp', 'ray'].includes(spec.launchMode)) p.push(`launch_mode ${spec.launchMode} is neither mp nor ray`);
    if (!spec.gpuIndices.length) p.push('vllm needs at least one GPU');
    return p;
  }

  private serveArgs(spec: agentV1.ShardSpec__Output, node: NodeContext, env: Record<string, string>): string[] {
    const { tp, pp } = parallel(spec);
    return [
      this.cfg.bin,
      'serve',
      spec.modelPath || spec.model,
      '--host',
      bindHost(node),
      '--port',
      String(spec.httpPort),
      '--served-model-name',
      servedName(spec),
      '--tensor-parallel-size',
      String(tp),
      '--pipeline-parallel-size',
      String(pp),
      ...vllmContract(spec, node, env),
    ];
  }

  build(spec: agentV1.ShardSpec__Output, node: NodeContext): EngineCommand {
    const env = baseEnv(spec, node);
    const { nnodes } = parallel(spec);
    const served = servedName(spec);
    const auth = spec.apiKey ? { apiKey: spec.apiKey } : {};
    if (nnodes === 1) return { argv: [...this.serveArgs(spec, node, env), ...spec.args], env, servedModelName: served, ...auth, ...probes(spec, node) };
    env.VLLM_HOST_IP = node.mgmtAddr;
    if (this.mode(spec) === 'mp') {
      const argv = [
        ...this.serveArgs(spec, node, env),
        '--nnodes',
        String(nnodes),
        '--node-rank',
        String(spec.rank),
        '--master-addr',
        spec.leaderAddr,
        '--master-port',
        String(spec.leaderPort),
        ...(spec.rank > 0 ? ['--headless'] : []),
        ...spec.args,
      ];
      return { argv, env, servedModelName: served, ...auth, ...probes(spec, node) };
    }
    const cleanup = [this.ray(), 'stop', '--force'];
    if (spec.rank > 0) {
      return {
        argv: [
          this.ray(),
          'start',
          '--block',
          `--address=${spec.leaderAddr}:${spec.leaderPort}`,
          `--node-ip-address=${node.mgmtAddr}`,
          `--num-gpus=${spec.gpuIndices.length}`,
        ],
        env,
        cleanup,
        servedModelName: served,
      };
    }
    // One process group for both steps: the head runs in the background of
    // the shell that then becomes `vllm serve` (exec), so a stop reaches both.
    const q = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;
    const head = [this.ray(), 'start', '--head', `--port=${spec.leaderPort}`, `--node-ip-address=${node.mgmtAddr}`, `--num-gpus=${spec.gpuIndices.length}`]
      .map(q)
      .join(' ');
    const serve = [...this.serveArgs(spec, node, env), '--distributed-executor-backend', 'ray', ...spec.args].map(q).join(' ');
    return { argv: ['/bin/sh', '-c', `${head} && exec ${serve}`], env, cleanup, servedModelName: served, ...auth, ...probes(spec, node) };
  }

  flags(): string[] {
    return [
      '--host',
      '--port',
      '--served-model-name',
      '--tensor-parallel-size',
      '--pipeline-parallel-size',
      '--max-num-seqs',
      '--scheduling-policy',
      '--kv-events-config',
      '--nnodes',
      '--node-rank',
      '--master-addr',
      '--master-port',
      '--headless',
      '--distributed-executor-backend',
    ];
  }

  probe(): EngineProbe {
    return { binary: this.cfg.bin, versionArgv: [this.cfg.bin, '--version'], helpArgv: [this.cfg.bin, 'serve', '--help=all'], parseVersion: firstVersion };
  }
}

/**
 * SGLang (`python -m sglang.launch_server`). Multi-node is native:
 * `--nnodes --node-rank --dist-init-addr host:port` on every rank.
 */
export class SglangEngine implements Engine {
  readonly kind: EngineKind = 'sglang';
  constructor(private readonly cfg: { python: string } = { python: 'python3' }) {}

  validate(spec: agentV1.ShardSpec__Output, node: NodeContext): string[] {
    const p = commonProblems(spec, node);
    if (!spec.gpuIndices.length) p.push('sglang needs at least one GPU');
    return p;
  }

  build(spec: agentV1.ShardSpec__Output, node: NodeContext): EngineCommand {
    const env = baseEnv(spec, node);
    const { tp, pp, nnodes } = parallel(spec);
    const argv = [
      this.cfg.python,
      '-m',
      'sglang.launch_server',
      '--model-path',
      spec.modelPath || spec.model,
      '--host',
      bindHost(node),
      '--port',
      String(spec.httpPort),
      '--served-model-name',
      servedName(spec),
      '--tp-size',
      String(tp),
      '--pp-size',
      String(pp),
      '--enable-metrics',
    ];
    if (spec.maxNumSeqs) argv.push('--max-running-requests', String(spec.maxNumSeqs));
    // SGLang runs higher priority values first unless told otherwise; the router sends the top band as 0 (vLLM's order).
    if (spec.schedulingPolicy === 'priority') argv.push('--enable-priority-scheduling', '--schedule-low-priority-values-first');
    const kv = kvEventsJson(spec, node, 'sglang');
    if (kv) argv.push('--kv-events-config', kv);
    // SGLang takes its key only as a flag: it is visible in `ps` on the node (docs/node-agent.md).
    if (spec.apiKey) argv.push('--api-key', spec.apiKey);
    if (nnodes > 1) argv.push('--nnodes', String(nnodes), '--node-rank', String(spec.rank), '--dist-init-addr', `${spec.leaderAddr}:${spec.leaderPort}`);
    argv.push(...sglangLoraArgs(spec));
    argv.push(...spec.args);
    return { argv, env, servedModelName: servedName(spec), ...(spec.apiKey ? { apiKey: spec.apiKey } : {}), ...probes(spec, node) };
  }

  flags(): string[] {
    return [
      '--model-path',
      '--host',
      '--port',
      '--served-model-name',
      '--tp-size',
      '--pp-size',
      '--enable-metrics',
      '--max-running-requests',
      '--enable-priority-scheduling',
      '--schedule-low-priority-values-first',
      '--kv-events-config',
      '--api-key',
      '--nnodes',
      '--node-rank',
      '--dist-init-addr',
    ];
  }

  probe(): EngineProbe {
    return {
      binary: this.cfg.python,
      versionArgv: [this.cfg.python, '-c', 'import sglang; print(sglang.__version__)'],
      helpArgv: [this.cfg.python, '-m', 'sglang.launch_server', '--help'],
      parseVersion: firstVersion,
    };
  }
}

/**
 * llama.cpp (`llama-server`). Single node only; serves on CPU when the spec
 * has no GPUs (`--n-gpu-layers 0`), else offloads every layer.
 */
export class LlamaCppEngine implements Engine {
  readonly kind: EngineKind = 'llamacpp';
  constructor(private readonly cfg: { bin: string } = { bin: 'llama-server' }) {}

  validate(spec: agentV1.ShardSpec__Output, node: NodeContext): string[] {
    const p = commonProblems(spec, node);
    if (Math.max(1, spec.nnodes) > 1) p.push('llama.cpp shards are single-node');
    return p;
  }

  build(spec: agentV1.ShardSpec__Output, node: NodeContext): EngineCommand {
    const argv = [
      this.cfg.bin,
      '--model',
      spec.modelPath || spec.model,
      '--host',
      bindHost(node),
      '--port',
      String(spec.httpPort),
      '--alias',
      servedName(spec),
      '--metrics',
      '--n-gpu-layers',
      spec.gpuIndices.length ? '999' : '0',
      ...(spec.maxNumSeqs ? ['--parallel', String(spec.maxNumSeqs)] : []),
      ...llamaCppLoraArgs(spec),
      ...spec.args,
    ];
    const env = baseEnv(spec, node);
    // llama-server reads --api-key from LLAMA_API_KEY: off the command line.
    if (spec.apiKey) env.LLAMA_API_KEY = spec.apiKey;
    return { argv, env, servedModelName: servedName(spec), ...(spec.apiKey ? { apiKey: spec.apiKey } : {}), ...probes(spec, node) };
  }

  flags(): string[] {
    return ['--model', '--host', '--port', '--alias', '--metrics', '--n-gpu-layers', '--parallel'];
  }

  probe(): EngineProbe {
    // llama-server --version prints e.g. "version: 6520 (25d5b0c5)".
    return {
      binary: this.cfg.bin,
      versionArgv: [this.cfg.bin, '--version'],
      helpArgv: [this.cfg.bin, '--help'],
      parseVersion: (o) => /version:\s*(\S+(?:\s*\([0-9a-f]+\))?)/.exec(o)?.[1] ?? firstVersion(o),
    };
  }
}

/** The repository root: the nearest folder above `from` holding bin/llmgw.cjs. */
export function findRepoRoot(from: string = __dirname): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'bin', 'llmgw.cjs'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Our sim-engine (`node <repo>/bin/llmgw.cjs sim-engine …`): what `llmgw
 * up` and the tests launch in place of a real engine. GPUs are accepted
 * (simulated) but not needed.
 *
 * Multi-node (a `sim` profile with `nodes > 1`): every rank runs a
 * sim-engine on its own `http_port`. Rank 0 is the replica: its endpoint is
 * reported, probed and scraped like any leader. A worker (rank > 0) stands
 * for the headless process of a real engine: it is probed on its own port
 * (READY only once it really serves, so a worker that cannot start fails its
 * replica) but reports no endpoint, is never scraped and drains at once. Sim
 * has no rendezvous: `leader_port` is reserved by the scheduler but unused,
 * and a worker does not die with its leader; the reconciler stops the whole
 * replica when any shard fails or its node is lost, as it does for real
 * engines, and a multi-node shard is never restarted on its own.
 */
export class SimEngineAdapter implements Engine {
  readonly kind: EngineKind = 'sim';
  private readonly node: string;
  private readonly llmgw: string;
  constructor(cfg: { node?: string; llmgw?: string } = {}) {
    this.node = cfg.node ?? process.execPath;
    const root = findRepoRoot();
    this.llmgw = cfg.llmgw ?? (root ? join(root, 'bin', 'llmgw.cjs') : 'llmgw.cjs');
  }

  validate(spec: agentV1.ShardSpec__Output, node: NodeContext): string[] {
    const p = commonProblems(spec, node);
    if (!(spec.httpPort > 0 && spec.httpPort < 65536) && spec.rank > 0) p.push('http_port is required for every sim shard (workers run a sim-engine too)');
    return p;
  }

  build(spec: agentV1.ShardSpec__Output, node: NodeContext): EngineCommand {
    const env = baseEnv(spec, node);
    const argv = [
      this.node,
      this.llmgw,
      'sim-engine',
      '--host',
      bindHost(node),
      '--port',
      String(spec.httpPort),
      '--model',
      servedName(spec),
      ...vllmContract(spec, node, env),
      ...spec.args,
    ];
    const cmd: EngineCommand = {
      argv,
      env,
      servedModelName: servedName(spec),
      ...(spec.apiKey ? { apiKey: spec.apiKey } : {}),
      ...probes(spec, node, node.mgmtAddr),
    };
    if (spec.rank > 0) {
      // A worker: readiness from its own sim-engine, nothing routers or the stats loop would see.
      const own = probes({ ...spec, rank: 0 }, node, node.mgmtAddr);
      cmd.healthUrl = own.healthUrl;
      cmd.modelsUrl = own.modelsUrl;
    }
    return cmd;
  }

  flags(): string[] {
    return ['--host', '--port', '--model', '--max-num-seqs', '--scheduling-policy', '--kv-events-config'];
  }

  probe(): EngineProbe {
    return {
      binary: this.llmgw,
      versionArgv: [this.node, this.llmgw, '--version'],
      helpArgv: [this.node, this.llmgw, 'sim-engine', '--help'],
      parseVersion: firstVersion,
    };
  }
}

/** The adapters agent.yaml configures (`engines:`), keyed by kind. */
export function enginesFromConfig(engines: {
  vllm?: { bin: string; launch_mode: 'mp' | 'ray'; ray_bin?: string };
  sglang?: { python: string };
  llamacpp?: { bin: string };
  sim?: { node?: string; llmgw?: string };
}): Map<EngineKind, Engine> {
  const m = new Map<EngineKind, Engine>();
  if (engines.vllm) m.set('vllm', new VllmEngine(engines.vllm));
  if (engines.sglang) m.set('sglang', new SglangEngine(engines.sglang));
  if (engines.llamacpp) m.set('llamacpp', new LlamaCppEngine(engines.llamacpp));
  if (engines.sim) m.set('sim', new SimEngineAdapter(engines.sim));
  return m;
}
