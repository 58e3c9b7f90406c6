import type * as grpc from '@grpc/grpc-js';
import type { agentV1 } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { fromGrpcError, makeClient, type ClientTlsOptions } from '@llmgw/grpc';
import type { Logger } from '@llmgw/observability';
import { randomUUID } from 'node:crypto';
import { DEFAULT_BACKOFF, REFUSED_BACKOFF, backoffDelay, type BackoffOptions } from './backoff';
import { agentServiceClient } from './proto';

/** Where the agent's side of the stream stands. */
export type AgentStreamState = 'idle' | 'connecting' | 'registered' | 'disconnected' | 'refused' | 'closed';

/**
 * Codes with which inventory refuses this agent, as opposed to being away:
 * the certificate does not name the node it claims (PERMISSION_DENIED), it
 * has none or the wrong role (UNAUTHENTICATED), or its Register is invalid.
 * Dialling again at outage speed cannot fix any of them.
 */
const REFUSALS: ReadonlySet<string> = new Set([
  'LLMGW_ERR_PERMISSION_DENIED',
  'LLMGW_ERR_AUTH_INVALID',
  'LLMGW_ERR_AUTH_MISSING',
  'LLMGW_ERR_INVALID_ARGUMENT',
  'LLMGW_ERR_FAILED_PRECONDITION',
]);

/** True when `err` means inventory refused this agent (wrong identity, invalid Register), not that it is unreachable. */
export function isRefusal(err: LlmgwError | undefined): boolean {
  return !!err && REFUSALS.has(err.code);
}

/** Sends one message on the current stream; false when no stream is registered (the message is dropped). */
export type AgentSend = (msg: agentV1.AgentMessage) => boolean;

export interface AgentStreamClientOptions {
  /** inventory's fleet-facing address, host:port. */
  address: string;
  /** TLS material; with cert+key the stream is mTLS and the cert's CN must be the node id. Plaintext when absent. */
  tls?: ClientTlsOptions;
  /**
   * Builds the Register for a new stream: called on every (re)connect, so it
   * carries the shards running at that moment. session_id, sent_at_ms,
   * agent_started_at_ms and heartbeat_interval_ms are filled in here.
   */
  register(): Omit<agentV1.Register, 'sessionId' | 'sentAtMs' | 'agentStartedAtMs' | 'heartbeatIntervalMs'>;
  /**
   * A command from inventory (start, stop, drain, logs). `send` answers on
   * the stream the command came on. Commands must be idempotent: inventory
   * may repeat one after a reconnect.
   */
  onCommand(msg: agentV1.ControlMessage__Output, send: AgentSend): void;
  /** The heartbeat payload (gpus, shards, host sensors); seq and sent_at_ms are filled in here. */
  heartbeat?(): Pick<agentV1.Heartbeat, 'gpus' | 'shards' | 'host'>;
  /** ms between heartbeats (default 5000). */
  heartbeatIntervalMs?: number;
  /** Reconnect backoff (default 500 ms doubling to 30 s, half jittered). */
  backoff?: BackoffOptions;
  /**
   * Backoff after inventory refused the agent (state 'refused'): slow, since
   * only an operator can fix a refusal (default 30 s doubling to 5 min, half
   * jittered). The agent keeps dialling rather than exiting: its engines keep
   * running under its supervision, and a refusal can end without a change on
   * the node (inventory's CA bundle or the node's certificate replaced).
   */
  refusedBackoff?: BackoffOptions;
  /** How long to wait for inventory's Ack of Register before giving up on a stream, ms (default 15 000). */
  registerTimeoutMs?: number;
  onState?(state: AgentStreamState, info: { error?: LlmgwError; attempt: number; nextRetryMs?: number }): void;
  /** Stable for this agent process; a new one tells inventory the agent restarted. Default: a random UUID. */
  sessionId?: string;
  startedAtMs?: number;
  log?: Logger;
  random?: () => number;
  now?: () => number;
}

/**
 * The agent's end of `AgentService.Connect`: dials out, registers, sends
 * heartbeats, hands commands to `onCommand`, and reconnects with jittered
 * backoff whenever the stream ends. Nothing here stops engines: while
 * disconnected the agent keeps supervising them and reports them in the next
 * Register.
 */
export class AgentStreamClient {
  readonly sessionId: string;
  private readonly startedAtMs: number;
  private readonly now: () => number;
  private client: agentV1.AgentServiceClient | undefined;
  private call: grpc.ClientDuplexStream<agentV1.AgentMessage, agentV1.ControlMessage__Output> | undefined;
  private stateValue: AgentStreamState = 'idle';
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private hbTimer: NodeJS.Timeout | undefined;
  private regTimer: NodeJS.Timeout | undefined;
  private seq = 0;
  private lastErrorValue: LlmgwError | undefined;
  private waiters: Array<() => void> = [];

  constructor(private readonly opts: AgentStreamClientOptions) {
    this.sessionId = opts.sessionId ?? randomUUID();
    this.now = opts.now ?? Date.now;
    this.startedAtMs = opts.startedAtMs ?? this.now();
  }

  get state(): AgentStreamState {
    return this.stateValue;
  }

  /** Why the last stream ended (or was refused); undefined before any failure. */
  get lastError(): LlmgwError | undefined {
    return this.lastErrorValue;
  }

  /** Starts dialling. */
  start(): void {
    if (this.stateValue !== 'idle') return;
    this.client = makeClient(agentServiceClient(), this.opts.address, {
      tls: this.opts.tls,
      channelOptions: { 'grpc.keepalive_time_ms': 20_000, 'grpc.keepalive_timeout_ms': 10_000, 'grpc.keepalive_permit_without_calls': 1 },
    });
    this.connect();
  }

  /** Resolves once a stream is registered (now or later). */
  whenRegistered(): Promise<void> {
    if (this.stateValue === 'registered') return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Sends on the registered stream; false (dropped) while disconnected. */
  send: AgentSend = (msg) => {
    if (this.stateValue !== 'registered' || !this.call) return false;
    this.call.write(msg);
    return true;
  };

  /** Ends the stream and stops reconnecting. */
  async close(): Promise<void> {
    if (this.stateValue === 'closed') return;
    this.setState('closed', {});
    this.clearTimers();
    const call = this.call;
    this.call = undefined;
    if (call) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 2_000);
        t.unref();
        call.once('status', () => {
          clearTimeout(t);
          resolve();
        });
        call.once('error', () => {
          clearTimeout(t);
          resolve();
        });
        call.end();
        call.cancel();
      });
    }
    this.client?.close();
  }

  private setState(s: AgentStreamState, info: { error?: LlmgwError; nextRetryMs?: number }): void {
    this.stateValue = s;
    if (s === 'registered') for (const w of this.waiters.splice(0)) w();
    this.opts.onState?.(s, { ...info, attempt: this.attempt });
  }

  private clearTimers(): void {
    clearTimeout(this.retryTimer);
    clearInterval(this.hbTimer);
    clearTimeout(this.regTimer);
    this.retryTimer = this.hbTimer = this.regTimer = undefined;
  }

  private connect(): void {
    if (this.stateValue === 'closed' || !this.client) return;
    this.setState('connecting', {});
    const call = this.client.Connect();
    this.call = call;
    this.seq = 0;
    let ended = false;
    const end = (err: LlmgwError) => {
      if (ended) return;
      ended = true;
      if (this.call === call) this.call = undefined;
      this.disconnected(err);
    };
    call.on('data', (m: agentV1.ControlMessage__Output) => {
      if (this.call !== call) return;
      if (this.stateValue === 'connecting') {
        if (m.msg === 'ack' && m.ack?.refId === this.sessionId) {
          if (m.ack.result === 'ACK_RESULT_REJECTED') {
            call.cancel();
            end(new LlmgwError('LLMGW_ERR_PERMISSION_DENIED', `inventory rejected register: ${m.ack.errorCode} ${m.ack.message}`.trim()));
            return;
          }
          clearTimeout(this.regTimer);
          this.attempt = 0;
          this.lastErrorValue = undefined;
          this.setState('registered', {});
          this.startHeartbeats(call);
        }
        return;
      }
      try {
        this.opts.onCommand(m, (reply) => {
          if (this.call !== call) return false;
          call.write(reply);
          return true;
        });
      } catch (e) {
        this.opts.log?.error({ err: e, msg: m.msg }, 'agent command handler threw');
      }
    });
    call.on('error', (e) => end(fromGrpcError(e)));
    call.on('status', (s) => {
      if (s.code === 0) end(new LlmgwError('LLMGW_ERR_UNAVAILABLE', 'inventory ended the stream'));
    });
    call.on('end', () => {
      /* the status follows */
    });
    const reg = this.opts.register();
    call.write({
      register: {
        ...reg,
        sessionId: this.sessionId,
        agentStartedAtMs: this.startedAtMs,
        sentAtMs: this.now(),
        heartbeatIntervalMs: this.opts.heartbeatIntervalMs ?? 5_000,
      },
    });
    this.regTimer = setTimeout(() => {
      if (this.call === call && this.stateValue === 'connecting') {
        call.cancel();
        end(new LlmgwError('LLMGW_ERR_DEADLINE_EXCEEDED', 'inventory did not acknowledge register in time'));
      }
    }, this.opts.registerTimeoutMs ?? 15_000);
    this.regTimer.unref();
  }

  private startHeartbeats(call: grpc.ClientDuplexStream<agentV1.AgentMessage, agentV1.ControlMessage__Output>): void {
    const interval = this.opts.heartbeatIntervalMs ?? 5_000;
    const beat = () => {
      if (this.call !== call || this.stateValue !== 'registered') return;
      const payload = this.opts.heartbeat?.() ?? { gpus: [], shards: [] };
      call.write({ heartbeat: { ...payload, seq: ++this.seq, sentAtMs: this.now() } });
    };
    beat();
    this.hbTimer = setInterval(beat, interval);
  }

  private disconnected(err: LlmgwError): void {
    this.clearTimers();
    if (this.stateValue === 'closed') return;
    const refused = isRefusal(err);
    // The first refusal after an outage (or after a success) starts the slow schedule from its beginning.
    if (refused !== isRefusal(this.lastErrorValue)) this.attempt = 0;
    this.lastErrorValue = err;
    const delay = backoffDelay(
      this.attempt,
      refused ? (this.opts.refusedBackoff ?? REFUSED_BACKOFF) : (this.opts.backoff ?? DEFAULT_BACKOFF),
      this.opts.random,
    );
    this.attempt++;
    if (refused)
      this.opts.log?.error(
        { server: this.opts.address, code: err.code, err: err.message, retryInMs: delay, attempt: this.attempt },
        'inventory refused this agent; fix its identity (certificate CN = node_id, role node) or Register; engines keep running',
      );
    else this.opts.log?.warn({ code: err.code, err: err.message, retryInMs: delay, attempt: this.attempt }, 'agent stream down; engines keep running');
    this.setState(refused ? 'refused' : 'disconnected', { error: err, nextRetryMs: delay });
    // Kept referenced: a disconnected agent must stay up and keep dialling.
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }
}
