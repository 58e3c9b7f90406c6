/**
 * `llmgw up` (what `npm start` runs): the whole stack on one machine, on
 * embedded defaults, in one process — sim-engines standing in for GPU
 * engines, the admission service, accounting on PGlite with in-process stores,
 * and one or more routers in front. Every service is the same code that runs
 * on its own (`llmgw router`, `llmgw admission`, …); only the wiring is here.
 *
 * Point it at real infrastructure with --redis-url and --database-url and the
 * code paths are the scaled deployment's.
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { start as startAccounting } from '../apps/accounting/src/server';
import { ensureDemoTenant } from '../apps/accounting/src/bootstrap';
import { start as startAdmission } from '../apps/admission/src/service';
import { start as startRouter } from '../apps/router/src/main';
import { start as startSimEngine } from '../apps/sim-engine/src/main';
import { createLogger } from '@llmgw/observability';

interface UpOptions {
  host: string;
  port: number;
  adminPort: number;
  accountingPort: number;
  admissionPort: number;
  routers: number;
  engines: number;
  model: string;
  dataDir: string;
  auth: boolean;
  admission: boolean;
  redisUrl?: string;
  databaseUrl?: string;
  decodeTps: number;
  logLevel: string;
}

function int(name: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return n;
  };
}

export function buildCommand(): Command {
  return new Command('llmgw up')
    .description('Run the whole stack on this machine on embedded defaults: sim-engines, admission, accounting (PGlite), routers.')
    .option('--host <host>', 'address every listener binds to', '127.0.0.1')
    .option('--port <port>', 'client API port of the first router (the next routers take the following ports)', int('--port', 0), 8080)
    .option('--admin-port <port>', 'admin port (/metrics, /healthz) of the first router', int('--admin-port', 0), 9090)
    .option('--accounting-port <port>', 'accounting gRPC port (where `llmgw ctl` connects by default)', int('--accounting-port', 0), 7072)
    .option('--admission-port <port>', 'admission gRPC port', int('--admission-port', 0), 7070)
    .option('--routers <n>', 'router instances sharing one admission queue and one set of limits', int('--routers', 1), 1)
    .option('--engines <n>', 'sim-engines serving the demo model', int('--engines', 1), 2)
    .option('--model <name>', 'name of the demo model', 'demo')
    .option('--decode-tps <n>', 'sim-engine decode speed, tokens/s per sequence', int('--decode-tps', 0), 50)
    .option('--data-dir <dir>', 'where embedded Postgres (PGlite) keeps tenancy and usage', '.llmgw')
    .option('--no-auth', 'serve without API keys (no limits, no budgets; usage still recorded)')
    .option('--no-admission', 'route without the admission service (no priority bands)')
    .option('--redis-url <url>', 'use Redis for counters, the usage stream and invalidation instead of in-process stores')
    .option('--database-url <url>', 'use this PostgreSQL (postgres://…) instead of PGlite')
    .option('--log-level <level>', 'trace | debug | info | warn | error | silent', 'warn')
    .addHelpText(
      'after',
      `
Ports: routers on --port, --port+1, …; their admin ports on --admin-port, --admin-port+1, …;
accounting on --accounting-port (7072, where \`llmgw ctl\` looks by default), admission on
--admission-port (7070); sim-engines and the other admin ports take free ports. Port 0 = any free port.

Examples:
  llmgw up
  llmgw up --routers 2 --engines 3
  llmgw up --no-auth --port 18080 --admin-port 19090`,
    )
    .exitOverride();
}

export async function up(o: UpOptions): Promise<{ close(): Promise<void>; routerUrls: string[]; demoKey?: string }> {
  const log = createLogger({ service: 'up', level: o.logLevel });
  const closers: Array<() => Promise<unknown>> = [];
  const close = async () => {
    while (closers.length) await closers.pop()!().catch((e) => log.warn({ err: String(e) }, 'close step failed'));
  };
  try {
    const engines = [];
    for (let i = 0; i < o.engines; i++) {
      const e = await startSimEngine({ host: o.host, port: 0, models: [o.model], decodeTps: o.decodeTps, seed: i + 1, logLevel: o.logLevel as never });
      closers.push(() => e.close());
      engines.push(e);
    }
    const endpoints = engines.map((e, i) => ({ name: `sim-${i + 1}`, url: e.url, model: o.model, engine: 'vllm' as const }));

    let accountingUrl: string | undefined;
    let demoKey: string | undefined;
    let demoKeyExisted = false;
    if (o.auth) {
      let databaseUrl = o.databaseUrl;
      if (!databaseUrl) {
        const dir = resolve(o.dataDir, 'pglite');
        mkdirSync(dir, { recursive: true });
        databaseUrl = `pglite:${dir}`;
      }
      const acct = await startAccounting({
        config: { listen: `${o.host}:${o.accountingPort}`, admin_listen: `${o.host}:0`, database_url: databaseUrl, redis_url: o.redisUrl, log_level: o.logLevel as never },
      });
      closers.push(() => acct.close());
      accountingUrl = acct.url;
      const demo = await ensureDemoTenant(acct.tenancy);
      demoKey = demo.secret;
      demoKeyExisted = !demo.secret;
    }

    let admissionUrl: string | undefined;
    if (o.admission) {
      const adm = await startAdmission({
        config: {
          listen: `${o.host}:${o.admissionPort}`,
          admin_listen: `${o.host}:0`,
          log_level: o.logLevel as never,
          endpoints,
          ...(o.redisUrl ? { leader: { redis_url: o.redisUrl } } : {}),
        } as never,
      });
      closers.push(() => adm.close());
      admissionUrl = adm.url;
    }

    const routerUrls: string[] = [];
    const adminUrls: string[] = [];
    for (let i = 0; i < o.routers; i++) {
      const r = await startRouter({
        config: {
          listen: `${o.host}:${o.port === 0 ? 0 : o.port + i}`,
          admin_listen: `${o.host}:${o.adminPort === 0 ? 0 : o.adminPort + i}`,
          log_level: o.logLevel as never,
          endpoints,
          admission: admissionUrl ? { mode: 'remote', address: admissionUrl } : { mode: 'off' },
          tenancy: o.auth ? { enabled: true, accounting_address: accountingUrl, redis_url: o.redisUrl } : { enabled: false },
        } as never,
      });
      closers.push(() => r.close());
      routerUrls.push(r.url);
      adminUrls.push(r.adminUrl);
    }

    const lines = [
      '',
      'llmgw is up',
      ...routerUrls.map((u, i) => `  router ${i + 1}     ${u}/v1  (OpenAI-compatible)   admin ${adminUrls[i]}/metrics`),
      `  engines      ${engines.length} × sim-engine serving "${o.model}": ${engines.map((e) => e.url).join(', ')}`,
      admissionUrl ? `  admission    ${admissionUrl} (gRPC)` : '  admission    off',
      accountingUrl ? `  accounting   ${accountingUrl} (gRPC); tenancy and usage in ${o.databaseUrl ? 'PostgreSQL' : resolve(o.dataDir, 'pglite')}` : '  accounting   off (no auth)',
    ];
    const auth = o.auth ? ` \\\n    -H "authorization: Bearer ${demoKey ?? '$LLMGW_KEY'}"` : '';
    if (o.auth && demoKey) {
      lines.push('', `  demo API key ${demoKey}`, '               shown once: it is stored only as a hash. Keep it, e.g. export LLMGW_KEY=<the key>.');
    } else if (o.auth && demoKeyExisted) {
      lines.push(
        '',
        '  demo API key was created on the first start and is not shown again (only its hash is stored).',
        `  Make another: npx llmgw ctl --accounting ${accountingUrl} key create --project demo --name mine`,
        `  or start afresh: rm -rf ${o.dataDir}`,
      );
    }
    lines.push(
      '',
      'Try:',
      `  curl -s ${routerUrls[0]}/v1/chat/completions -H 'content-type: application/json'${auth} \\`,
      `    -d '{"model":"${o.model}","messages":[{"role":"user","content":"Hello!"}],"max_tokens":16}'`,
      '',
      'Stop with Ctrl-C.',
      '',
    );
    process.stdout.write(lines.join('\n'));
    return { close, routerUrls, demoKey };
  } catch (e) {
    await close();
    throw e;
  }
}

export async function main(argv: string[]): Promise<number | void> {
  const program = buildCommand();
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    throw e;
  }
  const o = program.opts<UpOptions>();
  let stack: Awaited<ReturnType<typeof up>>;
  try {
    stack = await up(o);
  } catch (e) {
    process.stderr.write(`llmgw up: ${(e as Error).message}\n`);
    return 1;
  }
  await new Promise<void>((done) => {
    const stop = (sig: string) => {
      process.stdout.write(`\n${sig}: stopping…\n`);
      stack.close().then(done, done);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}
