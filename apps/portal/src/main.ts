import { AccountingClient } from '@llmgw/accounting-rpc';
import { overrideListen } from '@llmgw/cli';
import { ControlClient } from '@llmgw/control-rpc';
import { defineService, runCommandLine, startService } from '@llmgw/service';
import { Command } from 'commander';
import { buildApp } from './app';
import { portalConfigSchema, type PortalConfigInput } from './config';

export { portalConfigSchema, type PortalConfig, type PortalConfigInput } from './config';

/**
 * The portal on the service host (docs/portal.md): people's pages, `/chat`
 * and `/admin`, talking to accounting and the placement-scheduler with the
 * `portal` role's certificate. Stateless; the host serves /metrics, /healthz, /readyz.
 */
export function portalService() {
  return defineService({
    name: 'portal',
    schema: portalConfigSchema,
    settings: (c) => ({ ...c, drain_deadline: 3000 }),
    async start(ctx) {
      const cfg = ctx.config;
      const accounting = new AccountingClient({
        address: cfg.accounting.address,
        tls: ctx.clientTls(cfg.accounting.tls, 'accounting.tls'),
        callTimeoutMs: 5000,
        dependency: ctx.dependency('accounting'),
      });
      ctx.onClose('accounting client', () => accounting.close());
      const control = cfg.control
        ? new ControlClient({ address: cfg.control.address, tls: ctx.clientTls(cfg.control.tls, 'control.tls'), callTimeoutMs: 10_000 })
        : undefined;
      if (control) ctx.onClose('control client', () => control.close());
      const app = await buildApp({ cfg, log: ctx.log, accounting, control });
      const url = await ctx.listenHttp('http', app, cfg.listen);
      ctx.onClose('http', () => app.close());
      ctx.describe({ router: cfg.router_url, accounting: cfg.accounting.address });
      return { url };
    },
  });
}

export interface RunningPortal {
  url: string;
  close(): Promise<void>;
}

/** Starts the portal through the service host (tests, `llmgw up`). */
export async function start(opts: { config: PortalConfigInput; log?: import('@llmgw/observability').Logger }): Promise<RunningPortal> {
  const running = await startService(portalService(), { config: opts.config, log: opts.log, configSource: 'portal options' });
  return { url: running.service.url, close: () => running.close() };
}

/** `llmgw portal ...` */
export function main(argv: string[]): Promise<number> {
  return runCommandLine(argv, portalService(), {
    command: new Command('llmgw portal')
      .description('The portal (docs/portal.md): sign-up and sign-in, claim links, /me, /chat and the /admin pages, for people rather than keys.')
      .option('-c, --config <file>', 'portal config file (YAML)')
      .option('--host <host>', 'HTTP and admin listen address')
      .option('--port <port>', 'HTTP port (overrides listen)')
      .option('--log-level <level>', 'trace | debug | info | warn | error')
      .addHelpText('after', '\nExample:\n  llmgw portal -c portal.yaml     # accounting, control and router_url set there\n')
      .exitOverride(),
    usageStatus: 2,
    apply(o: { config?: string; port?: string; host?: string; logLevel?: string }, input) {
      if (o.port !== undefined || o.host !== undefined) input.listen = overrideListen(input.listen, '127.0.0.1:8090', o.host, o.port);
      if (o.logLevel) input.log_level = o.logLevel;
    },
  });
}
