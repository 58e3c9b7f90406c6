import { Command, CommanderError } from 'commander';
import { isLlmgwError, type LlmgwError } from '@llmgw/errors';
import { LLMGW_CODE_KEY } from '@llmgw/grpc';
import { hostname, userInfo } from 'node:os';
import { COMMAND_MODULES } from './commands';
import { UsageError } from './format';
import { CtlContext, type CtlBoot, type CtlIO } from './context';
import { defaultConfigSearch } from './config-file';

export { CtlContext } from './context';
export type { CtlIO, CtlBoot } from './context';

function bootFromEnv(): CtlBoot {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (containers)
  }
  const env = process.env;
  return {
    accountingAddr: env.LLMGW_ACCOUNTING_ADDR || undefined,
    controlAddr: env.LLMGW_CONTROL_ADDR || undefined,
    actor: `${env.USER || user}@${hostname()}`,
    tls: {
      ca: env.LLMGW_TLS_CA || undefined,
      cert: env.LLMGW_TLS_CERT || undefined,
      key: env.LLMGW_TLS_KEY || undefined,
      serverName: env.LLMGW_TLS_SERVER_NAME || undefined,
    },
    configSearch: defaultConfigSearch(env),
  };
}

/** Builds the `llmgw ctl` program (exported for tests and for the help reference). */
export function buildProgram(ctx: CtlContext): Command {
  const program = new Command('llmgw ctl')
    .description(
      'Operate llmgw: tenancy (org, team, project, key, limit), usage and audit; the fleet (nodes, cordon, drain, logs, top); over the admin gRPC APIs.',
    )
    .option('--config <file>', 'ctl config file (default $LLMGW_CTL_CONFIG, else ./.llmgw/ctl.yaml, else ~/.config/llmgw/ctl.yaml; `llmgw up` writes one)')
    .option('--accounting <addr>', 'accounting admin gRPC address host:port (default $LLMGW_ACCOUNTING_ADDR, the config file, else 127.0.0.1:7072)')
    .option('--control <addr>', "the placement-scheduler's ControlService, host:port (default $LLMGW_CONTROL_ADDR, the config file, else 127.0.0.1:7074)")
    .option('--actor <name>', 'who to record in the audit log (default: the config file, else $USER@host)')
    .option('--timeout <ms>', 'per-call deadline in milliseconds', '10000')
    .option(
      '--idempotency-key <key>',
      "key of this command's admin writes (default: a fresh one); repeat a write that failed unavailable with the key it printed to get its result instead of writing twice",
    )
    .option('--tls-ca <file>', "CA that signed the admin API's certificate (TLS); default $LLMGW_TLS_CA, else the config file")
    .option(
      '--tls-cert <file>',
      'operator certificate for mTLS (role operator; its CN is recorded in the audit log); default $LLMGW_TLS_CERT, else the config file',
    )
    .option('--tls-key <file>', 'key of --tls-cert; default $LLMGW_TLS_KEY, else the config file')
    .option('--tls-server-name <name>', 'name (or IP) to check the server certificate against when it is not the host dialled; default $LLMGW_TLS_SERVER_NAME')
    .option('--json', 'print JSON instead of text')
    .configureOutput({ writeOut: (s) => ctx.io.stdout.write(s), writeErr: (s) => ctx.io.stderr.write(s) })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Examples:
  llmgw ctl org create acme
  llmgw ctl team create ml --org acme
  llmgw ctl project create chat --team ml --band gold
  llmgw ctl key create --project chat --name ci-bot          # prints the key ONCE
  llmgw ctl limit set team ml --rpm 600 --budget 100 --period day
  llmgw ctl key show ci-bot --json
  llmgw ctl key revoke key_abc123
  llmgw ctl nodes                                            # the fleet (--control or LLMGW_CONTROL_ADDR)
  llmgw ctl cordon gpu-a-01 --reason "bad fan"
  llmgw ctl logs llama-8b-7f3a --tail 200 -f
  llmgw ctl top`,
    );
  for (const register of COMMAND_MODULES) register(program, ctx);
  return program;
}

/** True when the failed call's status came from the service itself (its llmgw-code trailer), not from the transport. */
function answeredByService(e: LlmgwError): boolean {
  const md = (e.cause as { metadata?: { get(k: string): unknown[] } } | undefined)?.metadata;
  return typeof md?.get === 'function' && md.get(LLMGW_CODE_KEY).length > 0;
}

/** `llmgw ctl ...`; exit 0 ok, 1 a failed call, 2 bad usage. */
export async function main(argv: string[], io: CtlIO = { stdout: process.stdout, stderr: process.stderr }, boot?: CtlBoot): Promise<number> {
  if (!boot) {
    try {
      boot = bootFromEnv();
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      io.stderr.write(`llmgw ctl: ${e.message}\n`);
      return 2;
    }
  }
  const ctx = new CtlContext(io, boot);
  const program = buildProgram(ctx);
  const json = argv.includes('--json');
  try {
    if (!argv.length) {
      program.outputHelp();
      return 2;
    }
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof UsageError) {
      if (json) io.stdout.write(JSON.stringify({ error: { code: 'usage', message: e.message } }, null, 2) + '\n');
      io.stderr.write(`llmgw ctl: ${e.message}\n`);
      return 2;
    }
    if (isLlmgwError(e)) {
      let message = e.message;
      // A status the service sent itself ("database unavailable (…)") is its answer: it was reachable.
      if ((e.code === 'LLMGW_ERR_UNAVAILABLE' || e.code === 'LLMGW_ERR_DEADLINE_EXCEEDED') && answeredByService(e)) {
        message = `${ctx.answeredBy ?? 'the service'} answered: ${e.message}`;
      } else if (e.code === 'LLMGW_ERR_UNAVAILABLE' || e.code === 'LLMGW_ERR_DEADLINE_EXCEEDED') {
        message = `${ctx.unreachableHint ?? 'cannot reach the service'} (${e.message})`;
      }
      if ((e.code === 'LLMGW_ERR_UNAVAILABLE' || e.code === 'LLMGW_ERR_DEADLINE_EXCEEDED') && ctx.accountingWrites > 0) {
        message += `\nnothing was written, or it was written once: repeat the command with --idempotency-key ${ctx.idempotencyKey} to get its result without writing twice`;
      }
      if (json) io.stdout.write(JSON.stringify({ error: { code: e.code, message } }, null, 2) + '\n');
      io.stderr.write(`llmgw ctl: ${message}\n`);
      return 1;
    }
    io.stderr.write(`llmgw ctl: ${(e as Error)?.stack ?? e}\n`);
    return 1;
  } finally {
    ctx.close();
  }
}
