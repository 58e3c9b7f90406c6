/**
 * `llmgw up` (what `npm start` runs): the whole system on one machine, on
 * embedded defaults, in one process — by default the control plane
 * (inventory, the placement-scheduler, two fake-GPU node-agents) placing the
 * demo model on sim-engine processes, the admission service, accounting on
 * PGlite, and one or more routers routing to the placed replicas. Every
 * service is the same code that runs on its own (`llmgw router`, `llmgw
 * admission`, …), reached through its app's public entry; the composition is
 * in ./stack.ts. Shared state that Redis holds in a scaled deployment is
 * in process here (libs/stores `inProcessState`). `--static` runs fixed
 * sim-engine endpoints instead of the control plane.
 *
 * Point it at real infrastructure with --redis-url and --database-url and the
 * code paths are the scaled deployment's.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import { createLogger } from '@llmgw/observability';
import { CTL_CONFIG_FILE } from './ctl-config';
import { startStack, type RunningStack, type UpOptions } from './stack';

export { writeCtlConfig, CTL_CONFIG_FILE } from './ctl-config';
export {
  FLEET_NODES,
  PARTS,
  demoCatalog,
  fleetKeyPrefix,
  startStack,
  type Part,
  type RunningStack,
  type StartedPart,
  type UpContext,
  type UpOptions,
} from './stack';

/** How long a signal may take to stop everything before `up` gives up on a clean stop and exits 1. */
export const STOP_DEADLINE_MS = 5_000;

function int(name: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return n;
  };
}

function ports(v: string): [number, number] {
  const m = /^(\d+)-(\d+)$/.exec(v);
  const r = m ? ([Number(m[1]), Number(m[2])] as [number, number]) : undefined;
  if (!r || r[0] < 1024 || r[1] > 65535 || r[0] > r[1]) throw new InvalidArgumentError('--engine-ports must be low-high within 1024-65535');
  return r;
}

export function buildCommand(): Command {
  return new Command('llmgw up')
    .description(
      'Run the whole system on this machine on embedded defaults: inventory, the placement-scheduler and two fake-GPU node-agents placing the demo model on sim-engines, admission, accounting (PGlite), routers. No Redis or Postgres needed.',
    )
    .option('--host <host>', 'address every listener binds to', '127.0.0.1')
    .option('--port <port>', 'client API port of the first router (the next routers take the following ports)', int('--port', 0), 8080)
    .option('--admin-port <port>', 'admin port (/metrics, /healthz) of the first router', int('--admin-port', 0), 9090)
    .option('--accounting-port <port>', 'accounting gRPC port (where `llmgw ctl` connects by default)', int('--accounting-port', 0), 7072)
    .option('--admission-port <port>', 'admission gRPC port', int('--admission-port', 0), 7070)
    .option(
      '--control-port <port>',
      "the placement-scheduler's ControlService port (where `llmgw ctl nodes | replicas` connects by default)",
      int('--control-port', 0),
      7074,
    )
    .option('--portal-port <port>', 'the portal (sign-in, /chat, /admin); default 8090, or any free port with --port 0', int('--portal-port', 0))
    .option('--routers <n>', 'router instances sharing one admission queue and one set of limits', int('--routers', 1), 1)
    .option('--engines <n>', 'replicas of the demo model (placed by the scheduler; with --static, sim-engines started directly)', int('--engines', 1), 2)
    .option('--model <name>', 'name of the demo model', 'demo')
    .option('--decode-tps <n>', 'sim-engine decode speed, tokens/s per sequence', int('--decode-tps', 0), 50)
    .option('--data-dir <dir>', 'where up keeps its state: embedded Postgres (PGlite), engine work dirs, the catalog, ctl.yaml', '.llmgw')
    .option('--no-auth', 'serve without API keys (no limits, no budgets; usage still recorded)')
    .option('--no-admission', 'route without the admission service (no priority bands)')
    .option('--static', 'no control plane: fixed sim-engine endpoints the routers are configured with (the mode before the control plane)')
    .option(
      '--redis-url <url>',
      'use Redis for shared state (endpoints, catalog view, targets, leader locks, counters, the usage stream) instead of in-process stores',
    )
    .option('--database-url <url>', 'use this PostgreSQL (postgres://…) instead of PGlite')
    .option('--log-level <level>', 'trace | debug | info | warn | error | silent', 'warn')
    .addOption(new Option('--engine-ports <low-high>', 'the ports placed engines are given').argParser(ports).default([20000, 20999], '20000-20999'))
    .addOption(new Option('--fleet', 'the default now (the control plane); kept so older command lines still start').hideHelp())
    .addHelpText(
      'after',
      `
What runs (default): inventory; two simulated nodes (up-gpu-a, up-gpu-b: 4 fake h100-80g GPUs each,
fabrics fab-a and fab-b) whose node-agents register with it; the placement-scheduler, which places
the demo model's replicas on them; the agents launch each replica as a sim-engine process; routers
route to what the scheduler publishes. "<model>-lazy" is loaded on demand: its first request
answers 503 model_loading with Retry-After, then it serves. Without --redis-url the shared state
is in this process; nothing else needs to be installed.

Ports: routers on --port, --port+1, …; their admin ports on --admin-port, --admin-port+1, …;
accounting on --accounting-port (7072), admission on --admission-port (7070), the ControlService
on --control-port (7074); engines on --engine-ports; the rest take free ports. Port 0 = any free
port. Every start writes <data-dir>/ctl.yaml with the addresses, so from this directory
\`llmgw ctl nodes\`, \`llmgw ctl replicas\` and \`llmgw ctl org list\` need no flags
(elsewhere: LLMGW_CTL_CONFIG=<data-dir>/ctl.yaml).

Ctrl-C (SIGINT) or SIGTERM stops everything, the engine processes too; a stop that takes longer
than ${STOP_DEADLINE_MS / 1000} s exits with status 1.

Examples:
  llmgw up                                   # then: llmgw ctl nodes | replicas | explain-placement demo
  llmgw up --routers 2 --engines 3
  llmgw up --no-auth --port 18080 --admin-port 19090
  llmgw up --redis-url redis://127.0.0.1:6379   # shared state in Redis, as a scaled deployment keeps it
  llmgw up --static                          # fixed sim-engine endpoints, no control plane`,
    )
    .exitOverride();
}

/** The "llmgw is up" banner: what runs, the demo key when there is one, and a request and ctl commands to try. */
export function banner(stack: RunningStack): string {
  const { o, demoKey, demoKeyExisted, routerUrls, ctlConfig } = stack.ctx;
  const lines = ['', 'llmgw is up', ...stack.summary];
  // From the directory above a data dir named .llmgw, ctl finds ctl.yaml by itself.
  const ctlIsDefault = !!ctlConfig && resolve(ctlConfig) === resolve('.llmgw', CTL_CONFIG_FILE);
  const ctl = ctlConfig && !ctlIsDefault ? `llmgw ctl --config ${ctlConfig}` : 'llmgw ctl';
  if (o.auth && demoKey) {
    lines.push('', `  demo API key ${demoKey}`, '               shown once: it is stored only as a hash. Keep it, e.g. export LLMGW_KEY=<the key>.');
  } else if (o.auth && demoKeyExisted) {
    lines.push(
      '',
      '  demo API key was created on the first start and is not shown again (only its hash is stored).',
      `  Make another: ${ctl} key create --project demo --name mine`,
      `  or start afresh: rm -rf ${o.dataDir}`,
    );
  }
  if (stack.ctx.firstAdmin?.password) {
    lines.push(
      '',
      `  portal admin ${stack.ctx.firstAdmin.email} / ${stack.ctx.firstAdmin.password}`,
      '               shown once: sign in at the portal and change it on your profile.',
    );
  }
  const auth = o.auth ? ` \\\n    -H "authorization: Bearer ${demoKey ?? '$LLMGW_KEY'}"` : '';
  lines.push(
    '',
    'Try:',
    `  curl -s ${routerUrls[0]}/v1/chat/completions -H 'content-type: application/json'${auth} \\`,
    `    -d '{"model":"${o.model}","messages":[{"role":"user","content":"Hello!"}],"max_tokens":16}'`,
    ...(stack.ctx.controlUrl
      ? [`  ${ctl} nodes          # the fake-GPU nodes`, `  ${ctl} replicas       # the placed replicas (the x-llmgw-replica header names the one that served)`]
      : []),
    ...(o.auth ? [`  ${ctl} org list`] : []),
    '',
    'Stop with Ctrl-C.',
    '',
  );
  return lines.join('\n');
}

/** Resolves on the first SIGINT or SIGTERM, with its name; the listeners are removed again. */
function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
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
  const log = createLogger({ service: 'up', level: o.logLevel });
  // Listening before the first service starts: a Ctrl-C during startup waits for it, then stops.
  const signal = nextSignal();
  let stack: RunningStack;
  try {
    stack = await startStack(o, log);
  } catch (e) {
    process.stderr.write(`llmgw up: ${(e as Error).message}\n`);
    return 1;
  }
  process.stdout.write(banner(stack));
  const sig = await signal;
  process.stdout.write(`\n${sig}: stopping…\n`);
  let deadline: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    stack.close().then(() => true),
    new Promise<false>((resolve) => (deadline = setTimeout(() => resolve(false), STOP_DEADLINE_MS))),
  ]);
  clearTimeout(deadline);
  if (!stopped) {
    process.stderr.write(`llmgw up: services did not stop within ${STOP_DEADLINE_MS / 1000} s; exiting anyway\n`);
    process.exit(1);
  }
  process.stdout.write('stopped\n');
  return 0;
}
