import { overrideListen, parseListen, reachableHost, untilSignal } from '@llmgw/cli';
import { Command, CommanderError } from 'commander';
import { ConfigError, parseConfig, readConfigFile, routerConfigSchema, type RouterConfig, type RouterConfigInput } from '@llmgw/config';
import { endpointFlagsToConfig, type EndpointSource } from '@llmgw/endpoints';
import { createLogger, type Logger, logListening } from '@llmgw/observability';
import { SchedulingConfigError } from '@llmgw/scheduling';
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

function urlOf(address: string | { address: string; port: number } | null, boundHost: string): string {
  if (!address || typeof address === 'string') return String(address);
  return `http://${reachableHost(boundHost === '0.0.0.0' || boundHost === '::' ? boundHost : address.address)}:${address.port}`;
}

/** Starts the router: client API and admin listeners, scraping, everything. */
export async function start(opts: StartOptions): Promise<RunningRouter> {
  const cfg: RouterConfig = Object.isFrozen(opts.config) ? (opts.config as RouterConfig) : parseConfig(routerConfigSchema, opts.config, 'router options');
  const log = opts.log ?? createLogger({ service: 'router', level: cfg.log_level });
  const core = await createRouter(cfg, { log, source: opts.source, random: opts.random });
  const c = parseListen(cfg.listen);
  const a = parseListen(cfg.admin_listen);
  try {
    await core.client.listen({ host: c.host, port: c.port });
    await core.admin.listen({ host: a.host, port: a.port });
  } catch (e) {
    await core.close();
    throw e;
  }
  const url = urlOf(core.client.server.address(), c.host);
  const adminUrl = urlOf(core.admin.server.address(), a.host);
  logListening(log, { url, urls: { client: url, admin: adminUrl }, endpoints: core.source.all().length });
  let closing: Promise<void> | undefined;
  return {
    url,
    adminUrl,
    core,
    close: () => (closing ??= core.close()),
  };
}

function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

/** `llmgw router ...` */
export async function main(argv: string[]): Promise<number | void> {
  const program = new Command('llmgw router')
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

  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    throw e;
  }
  const o = program.opts<{ config?: string; endpoint: string[]; modelAlias: string[]; port?: string; host?: string; adminPort?: string; logLevel?: string }>();

  let cfg: RouterConfig;
  try {
    const raw = (o.config ? readConfigFile(o.config) : {}) as Record<string, any>;
    const input: Record<string, any> = { ...(raw ?? {}) };
    if (o.endpoint.length) {
      input.endpoints = [...(input.endpoints ?? []), ...endpointFlagsToConfig(o.endpoint)];
    }
    if (o.modelAlias.length) {
      const aliases: Record<string, string> = { ...(input.model_aliases ?? {}) };
      for (const a of o.modelAlias) {
        const [k, v] = a.split('=');
        if (!k || !v) throw new ConfigError('--model-alias', [`"${a}" is not alias=model`]);
        aliases[k] = v;
      }
      input.model_aliases = aliases;
    }
    const host = o.host;
    if (o.port !== undefined || host !== undefined) input.listen = overrideListen(input.listen, '127.0.0.1:8080', host, o.port);
    if (o.adminPort !== undefined || host !== undefined) input.admin_listen = overrideListen(input.admin_listen, '127.0.0.1:9090', host, o.adminPort);
    if (o.logLevel) input.log_level = o.logLevel;
    cfg = parseConfig(routerConfigSchema, input, o.config ?? 'command line');
  } catch (e) {
    process.stderr.write(`llmgw router: ${(e as Error).message}\n`);
    return 2;
  }
  if (cfg.endpoints.length === 0 && cfg.endpoint_source.kind === 'static') {
    process.stderr.write('llmgw router: no endpoints; pass --endpoint name=url=model or list endpoints in --config\n');
    return 2;
  }

  let running: RunningRouter;
  try {
    running = await start({ config: cfg });
  } catch (e) {
    if (e instanceof ConfigError || e instanceof SchedulingConfigError) {
      process.stderr.write(`llmgw router: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  await untilSignal(() => running.close());
  return 0;
}
