import type { Command } from 'commander';
import { randomUUID } from 'node:crypto';
import { ConfigError } from '@llmgw/config';
import type { ClientTlsOptions } from '@llmgw/grpc';
import { ControlClient } from '@llmgw/control-rpc';
import { clientTls } from '@llmgw/service';
import type { AccountingClient } from '@llmgw/accounting-rpc';
import { accountingAdmin, normaliseAddress } from './accounting-client';
import { findCtlConfig, type CtlConfigSearch, type LoadedCtlConfig } from './config-file';
import { usage } from './format';

/** Where ctl writes; tests pass their own. */
export interface CtlIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

/** Settings read once at boot (flags win over the environment). */
export interface CtlBoot {
  /** LLMGW_ACCOUNTING_ADDR at boot. */
  accountingAddr?: string;
  /** LLMGW_CONTROL_ADDR at boot: the placement-scheduler's ControlService. */
  controlAddr?: string;
  /** $USER@host, the default audit actor. */
  actor: string;
  /** LLMGW_TLS_CA / LLMGW_TLS_CERT / LLMGW_TLS_KEY / LLMGW_TLS_SERVER_NAME at boot. */
  tls?: { ca?: string; cert?: string; key?: string; serverName?: string };
  /** Where to look for the config file when --config is not given ($LLMGW_CTL_CONFIG, ./.llmgw/ctl.yaml, ~/.config/llmgw/ctl.yaml). */
  configSearch?: CtlConfigSearch;
}

/** What a command's options say, before defaults. */
export interface CtlOptions {
  json?: boolean;
  accounting?: string;
  control?: string;
  actor?: string;
  timeout?: string;
  config?: string;
  idempotencyKey?: string;
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsServerName?: string;
}

/**
 * What every command module gets: output helpers that honour `--json`, and
 * lazily opened admin clients. Later modules (`nodes`, `models`, `replicas`,
 * `cordon`, `drain`, `explain-placement`, `logs`) add their clients here.
 */
export class CtlContext {
  private acct?: AccountingClient;
  private ctl?: ControlClient;

  private file?: LoadedCtlConfig | null;

  constructor(
    readonly io: CtlIO,
    readonly boot: CtlBoot,
  ) {}

  /** Global + command options of the running command. */
  opts(cmd: Command): CtlOptions {
    return cmd.optsWithGlobals();
  }

  /** The config file in use (--config, else the boot search), read once; undefined when there is none. */
  configFile(cmd: Command): LoadedCtlConfig | undefined {
    if (this.file === undefined) this.file = findCtlConfig(this.opts(cmd).config, this.boot.configSearch) ?? null;
    return this.file ?? undefined;
  }

  /** Each TLS setting from its flag, else LLMGW_TLS_*, else the config file; the files read once. */
  tls(cmd: Command): ClientTlsOptions | undefined {
    const o = this.opts(cmd);
    const f = this.configFile(cmd)?.tls;
    const b = this.boot.tls;
    const ca = o.tlsCa ?? b?.ca ?? f?.ca;
    const cert = o.tlsCert ?? b?.cert ?? f?.cert;
    const key = o.tlsKey ?? b?.key ?? f?.key;
    const serverName = o.tlsServerName ?? b?.serverName ?? f?.server_name;
    if (!ca && !cert && !key) return undefined;
    if (!ca) throw usage("TLS needs the CA that signed the admin API's certificate: --tls-ca, LLMGW_TLS_CA or tls.ca in the config file");
    try {
      return clientTls({ ca, cert, key, server_name: serverName }, 'ctl TLS (--tls-*, LLMGW_TLS_*, config tls)');
    } catch (e) {
      if (e instanceof ConfigError) throw usage(e.message);
      throw e;
    }
  }

  /** Who the audit log records: --actor, else the config file's actor, else $USER@host. */
  actor(cmd: Command): string {
    return this.opts(cmd).actor ?? this.configFile(cmd)?.actor ?? this.boot.actor;
  }

  accounting(cmd: Command): AccountingClient {
    if (!this.acct) {
      const o = this.opts(cmd);
      const addr = o.accounting ?? this.boot.accountingAddr ?? this.configFile(cmd)?.accounting ?? '127.0.0.1:7072';
      if (o.idempotencyKey !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(o.idempotencyKey))
        throw usage('--idempotency-key must be 1 to 100 characters of A-Z, a-z, 0-9, ".", "_" or "-"');
      this.idempotencyKey = o.idempotencyKey ?? randomUUID();
      this.acct = accountingAdmin(addr, {
        actor: this.actor(cmd),
        timeoutMs: Number(o.timeout ?? 10_000),
        tls: this.tls(cmd),
        idempotencyKey: this.idempotencyKey,
      });
      this.accountingAddress = addr;
      this.unreachableHint = `cannot reach accounting at ${addr}; is it running? Set --accounting, LLMGW_ACCOUNTING_ADDR or accounting in the config file`;
      this.answeredBy = `accounting at ${addr}`;
    }
    return this.acct;
  }

  /** The address in use (for error hints). */
  accountingAddress?: string;

  /** This invocation's idempotency key for admin writes (--idempotency-key, else fresh). */
  idempotencyKey?: string;

  /** Admin writes this invocation sent to accounting. */
  get accountingWrites(): number {
    return this.acct?.writes ?? 0;
  }

  /**
   * The ControlService client (the placement-scheduler: nodes, cordon,
   * drain, logs, top, models, replicas), every call carrying the actor.
   */
  control(cmd: Command): ControlClient {
    if (!this.ctl) {
      const o = this.opts(cmd);
      const addr = normaliseAddress(o.control ?? this.boot.controlAddr ?? this.configFile(cmd)?.control ?? '127.0.0.1:7074');
      this.ctl = new ControlClient({ address: addr, tls: this.tls(cmd), actor: this.actor(cmd), callTimeoutMs: Number(o.timeout ?? 10_000) });
      this.unreachableHint = `cannot reach the control API at ${addr}; is the placement-scheduler running? Set --control, LLMGW_CONTROL_ADDR or control in the config file`;
      this.answeredBy = `the control API at ${addr}`;
    }
    return this.ctl;
  }

  /** What to say when the service last opened cannot be reached. */
  unreachableHint?: string;

  /** Who answered, when the service last opened sent a failure status itself. */
  answeredBy?: string;

  /** Prints `data` as JSON with --json, else runs `human`. */
  out(cmd: Command, data: unknown, human: () => string): void {
    if (this.opts(cmd).json) this.io.stdout.write(JSON.stringify(data, null, 2) + '\n');
    else this.io.stdout.write(human().replace(/\n?$/, '\n'));
  }

  warn(s: string): void {
    this.io.stderr.write(s.replace(/\n?$/, '\n'));
  }

  close(): void {
    this.acct?.close();
    this.ctl?.close();
  }
}
