import { overrideListen } from '@llmgw/cli';
import { Command } from 'commander';
import { ConfigError, routerConfigSchema, type RouterConfig, type RouterConfigInput } from '@llmgw/config';
import { endpointFlagsToConfig, type EndpointSource } from '@llmgw/endpoints';
import type { Logger } from '@llmgw/observability';
import { SchedulingConfigError } from '@llmgw/scheduling';
import { defineService, runCommandLine, startService } from '@llmgw/service';
import { createRouter, type RouterCore } from './router';

export interface StartOptions {
  /** Parsed config, or raw input to parse (defaults filled in). */
  config: RouterConfig | RouterConfigInput;
  log?: Logger;
  /** Use this endpoint source instead of the one config describes. */
  source?: EndpointSource;
  random?: () => number;
}

export interface RunningRouter {
  /** Client API base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Admin (metrics, health) base URL. */
  adminUrl: string;
  core: RouterCore;
  close(): Promise<void>;
}

/** What a started router hands back through the host (`RunningService.service`). */
export interface RouterHandle {
  url: string;
  core: RouterCore;
}

/**
 * The router on the service host: the client API on `listen`; /metrics,
 * /healthz and /readyz on the host's admin app at `admin_listen`. On
 * SIGTERM /readyz turns 503 at once while requests are still served for
 * `drain_delay`; then idle sockets go, running requests get `shutdown_grace`,
 * and scraping, admission, tenancy and the upstream pools close last.
 */
export function routerService(opts: { source?: EndpointSource; random?: () => number } = {}) {
  return defineService({
    name: 'router',
    schema: routerConfigSchema,
    // The router's own grace (drain_delay, then shutdown_grace) governs; the host's deadline only backs it up.
    settings: (c) => ({ log_level: c.log_level, admin_listen: c.admin_listen, drain_deadline: c.drain_delay + c.shutdown_grace + 1000 }),
    async start(ctx): Promise<RouterHandle> {
      const cfg = ctx.config;
      const core = await createRouter(cfg, {
        log: ctx.log,
        registry: ctx.registry,
        source: opts.source,
        random: opts.random,
        redis: ctx.redis,
        dependency: ctx.dependency,
      });
      ctx.onClose('router', () => core.closeResources());
      // A deep accept backlog (the kernel caps it at net.core.somaxconn): clients open connections in
      // bursts, and with Node's default of 511 a burst of thousands overflows the queue — dropped SYNs
      // cost each client a retransmit, then a connect timeout or a reset. Several sockets on the port
      // take that burst in several per event-loop turn (`listen_sockets`).
      const url = await ctx.listenHttp('client', core.client, cfg.listen, { backlog: 4096, sockets: cfg.listen_sockets });
      // Runs before the client listener closes: not ready (the host) but still serving for drain_delay.
      ctx.onClose('drain', async () => {
        if (cfg.drain_delay > 0) await new Promise((r) => setTimeout(r, cfg.drain_delay));
        core.stopAccepting();
      });
      ctx.readiness(() => core.readiness());
      ctx.describe({ endpoints: core.source.all().length });
      return { url, core };
    },
  });
}

/** Starts the router through the service host: client API and admin listeners, scraping, everything. */
export async function start(opts: StartOptions): Promise<RunningRouter> {
  const running = await startService(routerService({ source: opts.source, random: opts.random }), {
    config: opts.config,
    log: opts.log,
    configSource: 'router options',
  });
  return { ...running.service, adminUrl: running.adminUrl!, close: () => running.close() };
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

interface Flags {
  config?: string;
  endpoint: string[];
  modelAlias: string[];
  port?: string;
  host?: string;
  adminPort?: string;
  logLevel?: string;
}

/** Builds the `llmgw router` command line (exported for tests and the help reference). */
export function buildCommand(): Command {
  return new Command('llmgw router')
    .description('The OpenAI-compatible data path: admission, filter → score → pick, streaming proxy, retries, breakers.')
    .option('-c, --config <file>', 'router config file (YAML); see deploy/examples/router.yaml')
    .option('--endpoint <spec>', 'a static endpoint, repeatable: name=url=model[,engine=vllm|sglang|llamacpp][,pool=P][,weight=W][,priority=N]', collect, [])
    .option('--model-alias <alias=model>', 'an alias for a model, repeatable', collect, [])
    .option('--port <port>', 'client API port (overrides listen; 0 = any free port)')
    .option('--host <host>', 'client and admin listen address', undefined)
    .option('--admin-port <port>', 'admin port for /metrics, /healthz, /readyz (overrides admin_listen)')
    .option('--log-level <level>', 'trace | debug | info | warn | error')
    .addHelpText(
      'after',
      `
Examples:
  llmgw router --endpoint a=http://127.0.0.1:8001=llama --endpoint b=http://127.0.0.1:8002=llama --port 8080
  llmgw router --config deploy/examples/router.yaml

Then:
  curl -s localhost:8080/v1/chat/completions -H 'content-type: application/json' \\
    -d '{"model":"llama","messages":[{"role":"user","content":"hi"}]}'`,
    )
    .exitOverride();
}

/** `llmgw router ...` */
export function main(argv: string[]): Promise<number> {
  return runCommandLine(argv, routerService(), {
    command: buildCommand(),
    configErrors: [SchedulingConfigError],
    apply(o: Flags, input) {
      if (o.endpoint.length) input.endpoints = [...(input.endpoints ?? []), ...endpointFlagsToConfig(o.endpoint)];
      if (o.modelAlias.length) {
        const aliases: Record<string, string> = { ...(input.model_aliases ?? {}) };
        for (const a of o.modelAlias) {
          const [k, v] = a.split('=');
          if (!k || !v) throw new ConfigError('--model-alias', [`"${a}" is not alias=model`]);
          aliases[k] = v;
        }
        input.model_aliases = aliases;
      }
      if (o.port !== undefined || o.host !== undefined) input.listen = overrideListen(input.listen, '127.0.0.1:8080', o.host, o.port);
      if (o.adminPort !== undefined || o.host !== undefined) input.admin_listen = overrideListen(input.admin_listen, '127.0.0.1:9090', o.host, o.adminPort);
      if (o.logLevel) input.log_level = o.logLevel;
    },
    check: (cfg) =>
      cfg.endpoints.length === 0 && cfg.endpoint_source.kind === 'static'
        ? 'no endpoints; pass --endpoint name=url=model or list endpoints in --config'
        : undefined,
  });
}
