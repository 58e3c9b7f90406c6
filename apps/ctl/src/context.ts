import type { Command } from 'commander';
import { ControlClient } from '@llmgw/control-rpc';
import { readFileSync } from 'node:fs';
import type { AccountingClient } from '@llmgw/accounting-rpc';
import { accountingAdmin, normaliseAddress } from './accounting-client';

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
  /** LLMGW_TLS_CA / LLMGW_TLS_CERT / LLMGW_TLS_KEY at boot. */
  tls?: { ca?: string; cert?: string; key?: string };
}

/**
 * What every command module gets: output helpers that honour `--json`, and
 * lazily opened admin clients. Later modules (`nodes`, `models`, `replicas`,
 * `cordon`, `drain`, `explain-placement`, `logs`) add their clients here.
 */
export class CtlContext {
  private acct?: AccountingClient;
  private ctl?: ControlClient;

  constructor(readonly io: CtlIO, readonly boot: CtlBoot) {}

  /** Global + command options of the running command. */
  opts(cmd: Command): { json?: boolean; accounting?: string; control?: string; actor?: string; timeout?: string; tlsCa?: string; tlsCert?: string; tlsKey?: string } {
    return cmd.optsWithGlobals();
  }

  accounting(cmd: Command): AccountingClient {
    if (!this.acct) {
      const o = this.opts(cmd);
      const addr = o.accounting ?? this.boot.accountingAddr ?? '127.0.0.1:7072';
      const tls = { ca: o.tlsCa ?? this.boot.tls?.ca, cert: o.tlsCert ?? this.boot.tls?.cert, key: o.tlsKey ?? this.boot.tls?.key };
      this.acct = accountingAdmin(addr, { actor: o.actor ?? this.boot.actor, timeoutMs: Number(o.timeout ?? 10_000), tls });
      this.accountingAddress = addr;
      this.unreachableHint = `cannot reach accounting at ${addr}; is it running? Set --accounting or LLMGW_ACCOUNTING_ADDR`;
    }
    return this.acct;
  }

  /** The address in use (for error hints). */
  accountingAddress?: string;

  /**
   * The ControlService client (the placement-scheduler: nodes, cordon,
   * drain, logs, top, models, replicas), every call carrying the actor.
   */
  control(cmd: Command): ControlClient {
    if (!this.ctl) {
      const o = this.opts(cmd);
      const addr = normaliseAddress(o.control ?? this.boot.controlAddr ?? '127.0.0.1:7074');
      const read = (f?: string) => (f ? readFileSync(f) : undefined);
      const ca = o.tlsCa ?? this.boot.tls?.ca;
      const cert = o.tlsCert ?? this.boot.tls?.cert;
      const key = o.tlsKey ?? this.boot.tls?.key;
      const tls = ca || cert || key ? { ca: read(ca), cert: read(cert), key: read(key) } : undefined;
      this.ctl = new ControlClient({ address: addr, tls, actor: o.actor ?? this.boot.actor, callTimeoutMs: Number(o.timeout ?? 10_000) });
      this.unreachableHint = `cannot reach the control API at ${addr}; is the placement-scheduler running? Set --control or LLMGW_CONTROL_ADDR`;
    }
    return this.ctl;
  }

  /** What to say when the service last opened cannot be reached. */
  unreachableHint?: string;

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
