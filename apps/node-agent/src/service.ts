import { defineService } from '@llmgw/service';
import { Gauge } from 'prom-client';
import { startAgent, type AgentHandle } from './agent';
import { agentConfigSchema } from './config';
import type { LogRing } from './supervisor/log-ring';

const STATES = ['PENDING', 'STARTING', 'LOADING', 'READY', 'DRAINING', 'STOPPED', 'FAILED'];

/**
 * The node-agent as a service of the host (@llmgw/service): config parsed
 * and frozen once, the host's logger and registry, /readyz = registered with
 * inventory, ordered shutdown that leaves engines running unless
 * `stop_engines_on_exit`.
 */
export function nodeAgentService(opts: { agentLog?: LogRing } = {}) {
  return defineService({
    name: 'node-agent',
    schema: agentConfigSchema,
    settings: (c) => ({
      log_level: c.log_level,
      admin_listen: c.admin_listen,
      // Stopping engines may take their whole grace period.
      drain_deadline: c.stop_engines_on_exit ? Math.max(c.drain_deadline, c.stop_grace + 5_000) : c.drain_deadline,
    }),
    async start(ctx): Promise<AgentHandle> {
      const agent = await startAgent(ctx.config, {
        log: ctx.log,
        agentLog: opts.agentLog,
        dependency: ctx.dependency('inventory', { address: ctx.config.server, fallback: 'engines keep running' }),
      });
      ctx.onClose('agent stream', () => agent.close());
      if (ctx.config.stop_engines_on_exit) ctx.onClose('engines', () => agent.stopEngines());
      new Gauge({
        name: 'llmgw_agent_shards',
        help: 'Shards this agent supervises, by state.',
        labelNames: ['state'],
        registers: [ctx.registry],
        collect() {
          const all = agent.supervisor.list();
          for (const st of STATES) this.set({ state: st.toLowerCase() }, all.filter((s) => s.state === `SHARD_STATE_${st}`).length);
        },
      });
      new Gauge({
        name: 'llmgw_agent_stream_registered',
        help: '1 while the stream to inventory is registered.',
        registers: [ctx.registry],
        collect() {
          this.set(agent.stream.state === 'registered' ? 1 : 0);
        },
      });
      new Gauge({
        name: 'llmgw_agent_gpus',
        help: 'GPUs discovered, by class.',
        labelNames: ['gpu_class'],
        registers: [ctx.registry],
        collect() {
          for (const cls of new Set(agent.discovery.node.gpus.map((g) => g.gpuClass)))
            this.set({ gpu_class: cls }, agent.discovery.node.gpus.filter((g) => g.gpuClass === cls).length);
        },
      });
      ctx.readiness(() => ({ ready: agent.stream.state === 'registered', stream: agent.stream.state, shards: agent.supervisor.running().length }));
      ctx.describe({
        nodeId: agent.discovery.node.nodeId,
        server: ctx.config.server,
        gpus: agent.discovery.node.gpus.length,
        simulated: agent.discovery.node.simulated,
      });
      return agent;
    },
  });
}
