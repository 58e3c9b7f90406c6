import type { AccountingClient } from '@llmgw/accounting-rpc';
import type { Logger } from '@llmgw/observability';

/** One operator action on the fleet, for the audit log. */
export interface AuditRecord {
  /** The operator as the ControlService resolved them (`callerActor`). */
  actor: string;
  /** "node.cordon", "node.uncordon", "node.drain", "model.target", "model.target.clear", "model.capacity.apply", "model.capacity.clear", "quota.set", "quota.clear". */
  action: string;
  targetType: 'node' | 'model' | 'quota';
  targetId: string;
  /** JSON-able facts of the change (reason, drain timeout, changed); never a secret. */
  details: Record<string, unknown>;
}

/** Where the ControlService records what operators did. Never throws and never blocks the action. */
export interface AuditSink {
  record(ev: AuditRecord): void;
  /** Resolves once every recorded event is stored. */
  flushed?(): Promise<void>;
  close?(): void;
}

/** Without an audit log (no accounting configured): each action at info in the service log, nothing more. */
export function logOnlyAuditSink(log: Pick<Logger, 'info'>): AuditSink {
  return { record: (ev) => log.info({ actor: ev.actor, action: ev.action, target: `${ev.targetType}/${ev.targetId}`, ...ev.details }, 'operator action') };
}

/** The one call the sink needs (AccountingClient fits). */
export type AuditAppender = Pick<AccountingClient, 'appendAudit'>;

export interface AccountingAuditSinkOptions {
  client: AuditAppender;
  log: Pick<Logger, 'info' | 'warn'>;
  /** Events waiting while accounting is away; the oldest beyond it is dropped (logged). Default 1000. */
  maxQueue?: number;
  /** First retry delay after a failed append, doubled up to retryMaxMs. Default 500 / 30 000 ms. */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/**
 * Appends the ControlService's operator actions to accounting's audit log
 * (AuditLog.AppendAudit), in order, one at a time. The action has already
 * happened when it is recorded: an accounting outage delays the record (it
 * waits in a bounded queue and is retried with backoff), it never refuses
 * the operator. Each action is also logged at info with its actor, so the
 * service log holds the trail even if the queue overflows.
 */
export class AccountingAuditSink implements AuditSink {
  private readonly queue: AuditRecord[] = [];
  private running = false;
  private failures = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private idle: Array<() => void> = [];

  constructor(private readonly o: AccountingAuditSinkOptions) {}

  record(ev: AuditRecord): void {
    this.o.log.info({ actor: ev.actor, action: ev.action, target: `${ev.targetType}/${ev.targetId}`, ...ev.details }, 'operator action');
    if (this.closed) return;
    this.queue.push(ev);
    const max = this.o.maxQueue ?? 1000;
    if (this.queue.length > max) {
      const lost = this.queue.shift()!;
      this.o.log.warn(
        { actor: lost.actor, action: lost.action, target: `${lost.targetType}/${lost.targetId}` },
        'audit queue full while accounting is unreachable; oldest event dropped from the audit log (kept in this log)',
      );
    }
    this.pump();
  }

  /** Events not yet in accounting. */
  pending(): number {
    return this.queue.length;
  }

  /** Resolves once the queue is empty (tests, orderly shutdown). */
  flushed(): Promise<void> {
    if (!this.queue.length && !this.running) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.queue.length) this.o.log.warn({ events: this.queue.length }, 'closing with audit events accounting has not taken (they are in this log)');
  }

  private pump(): void {
    if (this.running || this.timer || this.closed) return;
    const ev = this.queue[0];
    if (!ev) {
      for (const r of this.idle.splice(0)) r();
      return;
    }
    this.running = true;
    this.o.client
      .appendAudit({ action: ev.action, targetType: ev.targetType, targetId: ev.targetId, details: JSON.stringify(ev.details) }, ev.actor)
      .then(
        () => {
          if (this.queue[0] === ev) this.queue.shift();
          if (this.failures) this.o.log.info({ afterFailures: this.failures }, 'audit log reachable again');
          this.failures = 0;
        },
        (e: Error & { code?: string }) => {
          if (e.code === 'LLMGW_ERR_INVALID_ARGUMENT') {
            // Accounting will never take this one: drop it (it is in this log) rather than block the queue.
            if (this.queue[0] === ev) this.queue.shift();
            this.o.log.warn(
              { err: e.message, action: ev.action, target: `${ev.targetType}/${ev.targetId}` },
              'audit log refused an event; dropped (it is in this log)',
            );
            return;
          }
          const delay = Math.min(this.o.retryMaxMs ?? 30_000, (this.o.retryBaseMs ?? 500) * 2 ** this.failures);
          if (this.failures === 0)
            this.o.log.warn({ err: e.message, retryInMs: delay, pending: this.queue.length }, 'audit log append failed; retrying (the action stands)');
          this.failures++;
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.pump();
          }, delay);
          this.timer.unref();
        },
      )
      .finally(() => {
        this.running = false;
        if (!this.timer) this.pump();
      });
  }
}
