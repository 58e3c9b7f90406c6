import { ConfigError } from '@llmgw/config';
import { runService } from '@llmgw/service';
import { Command, CommanderError } from 'commander';
import { join } from 'node:path';
import { AGENT_VERSION, teeToRing } from './agent';
import { loadAgentConfig, parseAgentConfig, type AgentConfig } from './config';
import { discover, type Discovery } from './discovery/discover';
import { enginesFromConfig } from './engines/adapters';
import { checkEngine, type EngineCheck } from './engines/check';
import { nodeAgentService } from './service';
import { LogRing } from './supervisor/log-ring';

export { startAgent, AGENT_VERSION, type AgentHandle, type StartAgentOptions } from './agent';
export { agentConfigSchema, parseAgentConfig, loadAgentConfig, type AgentConfig, type AgentConfigInput } from './config';
export { discover, type Discovery } from './discovery/discover';
export { nodeAgentService } from './service';

interface Io {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
}

/** agent.yaml (when given) with command-line flags on top; every problem reported at once. */
function configFrom(o: Record<string, any>): AgentConfig {
  const overrides: Record<string, unknown> = {};
  if (o.nodeId !== undefined) overrides.node_id = o.nodeId;
  if (o.server !== undefined) overrides.server = o.server;
  if (o.workDir !== undefined) overrides.work_dir = o.workDir;
  if (o.fakeGpus !== undefined) overrides.fake_gpus = o.fakeGpus;
  if (o.nvidiaSmi !== undefined) overrides.nvidia_smi = o.nvidiaSmi;
  if (o.sysfsRoot !== undefined) overrides.sysfs_root = o.sysfsRoot;
  if (o.logLevel !== undefined) overrides.log_level = o.logLevel;
  if (o.stopEnginesOnExit) overrides.stop_engines_on_exit = true;
  if (o.adminListen !== undefined) overrides.admin_listen = o.adminListen;
  return o.config ? loadAgentConfig(o.config, overrides) : parseAgentConfig(overrides, 'command line');
}

const MIB_PER_GIB = 1024;

/** The human form of a discovery. */
export function formatDiscovery(d: Discovery): string {
  const n = d.node;
  const lines = [`node ${n.nodeId} (host ${n.hostname}, mgmt ${n.mgmtAddr})${n.simulated ? ' — SIMULATED GPUs' : ''}`];
  if (!n.gpus.length) {
    lines.push(`GPUs: none — ${d.warnings.find((w) => w.startsWith('no GPU')) ?? 'no GPU found'}`);
  } else {
    const classes = [...new Set(n.gpus.map((g) => g.gpuClass))];
    lines.push(`GPUs: ${n.gpus.length} (${classes.join(', ')}; driver ${n.versions?.driver || '?'}, CUDA ${n.versions?.cuda || '?'})`);
    for (const g of n.gpus) {
      const h = d.gpuHealth.find((x) => x.index === g.index);
      const mig = g.migMode.replace('MIG_MODE_', '').toLowerCase();
      lines.push(
        `  ${g.index}  ${g.gpuClass.padEnd(10)} ${g.name}  ${g.memoryTotalMib} MiB  NUMA ${g.numaNode < 0 ? '?' : g.numaNode}  MIG ${mig}  ECC ${g.eccSupported ? (g.eccEnabled ? 'on' : 'off') : 'n/a'}  ` +
          `${(h?.health ?? 'GPU_HEALTH_UNSPECIFIED').replace('GPU_HEALTH_', '')}${h?.reasons.length ? ` (${h.reasons.join('; ')})` : ''}${g.nvlinkPeers.length ? `  NVLink ${g.nvlinkPeers.join(',')}` : ''}`,
      );
    }
  }
  if (n.hcas.length) {
    lines.push(
      `HCAs: ${n.hcas.map((h) => `${h.name}[${h.ports.map((p) => `${p.port}:${p.state.replace('PORT_STATE_', '').toLowerCase()} ${p.rateGbps}G ${p.linkLayer === 'LINK_LAYER_ETHERNET' ? 'RoCE' : p.linkLayer === 'LINK_LAYER_INFINIBAND' ? 'IB' : '?'}`).join(', ')}]`).join('  ')}`,
    );
    lines.push(
      `fabrics: ${n.fabrics.map((f) => `${f.fabric} = ${f.hcas.join(',')} (${f.rateGbps} Gb/s, from ${f.source.replace('FABRIC_SOURCE_', '').toLowerCase()})`).join('; ') || 'none (no ACTIVE port)'}`,
    );
  } else lines.push('HCAs: none (single-node placement only)');
  lines.push(
    `CPU: ${n.cpuCores} cores${n.cpuModel ? ` (${n.cpuModel})` : ''}; memory ${(n.memoryTotalMib / MIB_PER_GIB).toFixed(1)} GiB; NUMA nodes ${n.topology?.numaNodes || '?'}`,
  );
  lines.push(`disk: ${(n.diskFreeMib / MIB_PER_GIB).toFixed(1)} GiB free of ${(n.diskTotalMib / MIB_PER_GIB).toFixed(1)} GiB under ${n.modelCacheDir}`);
  if (d.warnings.length) lines.push('warnings:', ...d.warnings.map((w) => `  - ${w}`));
  return lines.join('\n') + '\n';
}

/** The JSON form: the node as Register carries it, plus a summary that says plainly whether there is a GPU. */
export function discoveryJson(d: Discovery): unknown {
  const noGpu = d.node.gpus.length === 0;
  return {
    summary: {
      gpus: d.node.gpus.length,
      gpuClasses: [...new Set(d.node.gpus.map((g) => g.gpuClass))],
      noGpu,
      noGpuReason: noGpu ? (d.warnings.find((w) => w.startsWith('no GPU')) ?? 'no GPU found') : undefined,
      simulated: d.node.simulated,
      cpuCores: d.node.cpuCores,
      memoryTotalMib: d.node.memoryTotalMib,
      diskFreeMib: d.node.diskFreeMib,
      fabrics: d.node.fabrics.map((f) => f.fabric),
    },
    node: d.node,
    gpuHealth: d.gpuHealth,
    warnings: d.warnings,
  };
}

function formatChecks(checks: EngineCheck[]): string {
  if (!checks.length) return 'no engines configured (agent.yaml engines:)\n';
  return (
    checks
      .map(
        (c) =>
          `${c.engine.padEnd(9)} ${c.error ? 'FAIL' : 'ok  '}  ${c.resolved ?? c.binary}${c.version ? `  version ${c.version}` : ''}${c.error ? `\n          ${c.error}` : ''}`,
      )
      .join('\n') + '\n'
  );
}

export function buildCommand(io: Io = { out: process.stdout, err: process.stderr }, result: { exitCode: number } = { exitCode: 0 }): Command {
  const root = new Command('llmgw node-agent')
    .description(
      'The agent on every GPU node: discovers GPUs, InfiniBand fabrics, CPU, memory and disk; launches and supervises engines; reports to inventory over mTLS (llmgw.agent.v1.AgentService, proto/llmgw/agent/v1/agent.proto).',
    )
    .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) })
    .exitOverride();
  const common = (c: Command) =>
    c
      .option('--config <file>', 'agent.yaml (docs/node-agent.md#agentyaml)')
      .option('--nvidia-smi <cmd>', 'the nvidia-smi command (a path, or a command with arguments, e.g. a capture replayer)')
      .option('--sysfs-root <dir>', 'the sysfs mount to read InfiniBand and NUMA from (default /sys)')
      .option('--fake-gpus <spec>', 'simulate GPUs instead of asking the driver, e.g. 8xh100-80g,fabric=ib-a')
      .option('--node-id <id>', 'the node id (default: the hostname); must equal the client certificate CN')
      .option('--work-dir <dir>', 'state directory (shard records and engine output)')
      .configureOutput({ writeOut: (s) => io.out.write(s), writeErr: (s) => io.err.write(s) })
      .exitOverride();

  common(root.command('run', { isDefault: true }).description('run the agent: discovery, then the stream to inventory (the default)'))
    .option('--server <host:port>', "inventory's fleet-facing address")
    .option('--log-level <level>', 'fatal | error | warn | info | debug | trace | silent')
    .option('--admin-listen <[host]:port>', 'the admin app: /metrics, /healthz, /readyz')
    .option('--stop-engines-on-exit', 'stop every engine when the agent exits (default: leave them for the next agent to adopt)')
    .action(async (o) => {
      const cfg = configFrom(o);
      const ring = new LogRing(cfg.log_ring_lines);
      result.exitCode = await runService(nodeAgentService({ agentLog: ring }), { config: cfg, logDestination: teeToRing(ring, process.stdout) });
    });

  common(root.command('discover').description('print what this machine has: GPUs, HCAs and fabrics, CPU, memory, NUMA, disk'))
    .option('--json', 'machine-readable output')
    .action(async (o) => {
      const cfg = configFrom(o);
      const d = await discover({
        nodeId: cfg.node_id,
        nvidiaSmi: cfg.nvidia_smi,
        sysfsRoot: cfg.sysfs_root,
        fakeGpus: cfg.fake_gpus,
        fabrics: cfg.fabrics,
        fabricPrefixes: cfg.fabric_prefixes,
        gpuClass: cfg.gpu_class,
        modelCacheDir: cfg.model_cache_dir ?? join(cfg.work_dir, 'models'),
        mgmtInterface: cfg.mgmt_interface,
        labels: cfg.labels,
        agentVersion: AGENT_VERSION,
      });
      io.out.write(o.json ? JSON.stringify(discoveryJson(d), null, 2) + '\n' : formatDiscovery(d));
    });

  common(root.command('engine-check').description("per configured engine: binary found, version, and every flag llmgw passes present in the engine's --help"))
    .option('--json', 'machine-readable output')
    .action(async (o) => {
      const cfg = configFrom(o);
      const checks = await Promise.all([...enginesFromConfig(cfg.engines).values()].map((e) => checkEngine(e)));
      io.out.write(o.json ? JSON.stringify({ engines: checks }, null, 2) + '\n' : formatChecks(checks));
      if (checks.some((c) => c.error)) result.exitCode = 1;
    });
  return root;
}

export async function main(argv: string[], io: Io = { out: process.stdout, err: process.stderr }): Promise<number> {
  const result = { exitCode: 0 };
  const cmd = buildCommand(io, result);
  try {
    await cmd.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof ConfigError) {
      io.err.write(`llmgw node-agent: ${e.message}\n`);
      return 2;
    }
    io.err.write(`llmgw node-agent: ${(e as Error).message}\n`);
    return 1;
  }
  return result.exitCode;
}
