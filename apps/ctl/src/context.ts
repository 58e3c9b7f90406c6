import type { Command } from 'commander';
import { type AccountingAdmin, accountingAdmin } from './accounting-client';

/** Where ctl writes; tests pass their own. */
export interface CtlIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

/** Settings read once at boot (flags win over the environment). */
export interface CtlBoot {
  /** LLMGW_ACCOUNTING_ADDR at boot. */
  accountingAddr?: string;
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
  private acct?: AccountingAdmin;

  constructor(readonly io: CtlIO, readonly boot: CtlBoot) {}

  /** Global + command options of the running command. */
  opts(cmd: Command): { json?: boolean; accounting?: string; actor?: string; timeout?: string; tlsCa?: string; tlsCert?: string; tlsKey?: string } {
    return cmd.optsWithGlobals();
  }

  accounting(cmd: Command): AccountingAdmin {
    if (!this.acct) {
      const o = this.opts(cmd);
      const addr = o.accounting ?? this.boot.accountingAddr ?? '127.0.0.1:7072';
      const tls = { ca: o.tlsCa ?? this.boot.tls?.ca, cert: o.tlsCert ?? this.boot.tls?.cert, key: o.tlsKey ?? this.boot.tls?.key };
      this.acct = accountingAdmin(addr, { actor: o.actor ?? this.boot.actor, timeoutMs: Number(o.timeout ?? 10_000), tls });
      this.accountingAddress = addr;
    }
    return this.acct;
  }

  /** The address in use (for error hints). */
  accountingAddress?: string;

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
  }
}
