import type * as grpc from '@grpc/grpc-js';
import { SHARD_STATE_NAMES, type agentV1 } from '@llmgw/contracts';
import { LlmgwError, isLlmgwError } from '@llmgw/errors';
import { assertPeerIdentity, endStreamWithError, findOversized, peerCommonName, type BoundsSpec } from '@llmgw/grpc';
import type { Logger } from '@llmgw/observability';
import { randomUUID } from 'node:crypto';
import { NODE_ID_PATTERN } from './proto';

type Duplex = grpc.ServerDuplexStream<agentV1.AgentMessage__Output, agentV1.ControlMessage>;

/** The collected answer to a LogsRequest. */
export interface LogsResult {
  lines: agentV1.LogLine__Output[];
  /** Older matching lines had already left the agent's ring buffer. */
  truncated: boolean;
}

/**
 * What the inventory implements: called for every stream of every agent.
 * Callbacks run in message order per stream; a callback that throws an
 * LlmgwError ends that stream with its status (any other error: INTERNAL).
 */
export interface AgentStreamEvents {
  /**
   * A stream passed Register validation and the identity check (CN = node
   * id). Throw to refuse the node (e.g. cordoned, a duplicate session).
   */
  onRegister(session: AgentSession): void | Promise<void>;
  onHeartbeat?(session: AgentSession, hb: agentV1.Heartbeat__Output): void;
  onShardStatus?(session: AgentSession, status: agentV1.ShardStatus__Output): void;
  onStats?(session: AgentSession, stats: agentV1.EngineStats__Output): void;
  /** The stream ended (agent gone, refused, or closed by `session.close`). Not called for refused Registers. */
  onClose?(session: AgentSession, err?: LlmgwError): void;
  /**
   * A stream was refused before or at Register (not register first, invalid,
   * CN ≠ node id, or onRegister threw): `claimed` is the node id it claimed,
   * `peerCn` its certificate CN. For metrics and audit.
   */
  onRefused?(err: LlmgwError, claimed: string | undefined, peerCn: string | undefined): void;
}

export interface AgentConnectOptions extends AgentStreamEvents {
  /**
   * Refuse a stream without a client certificate (UNAUTHENTICATED). Set it on
   * an mTLS port; leave it off only for plaintext on a trusted network.
   */
  requireCert?: boolean;
  /** How long a command waits for the agent's Ack before rejecting with DEADLINE_EXCEEDED, ms (default 30 000). */
  commandTimeoutMs?: number;
  log?: Logger;
  now?: () => number;
  /**
   * The most shards one Register or Heartbeat may list (default
   * DEFAULT_MAX_SHARDS_PER_NODE); a message over it ends the stream with
   * INVALID_ARGUMENT, before any of it is applied.
   */
  maxShardsPerNode?: number;
}

/** Shards one node may report at once, unless configured (inventory `max_shards_per_node`). */
export const DEFAULT_MAX_SHARDS_PER_NODE = 1024;

/** Size limits of every message an agent sends (docs/inventory.md, "Limits"). */
export function agentMessageBounds(maxShards = DEFAULT_MAX_SHARDS_PER_NODE): BoundsSpec {
  return {
    maxString: 4096,
    maxRepeated: 1024,
    fields: {
      nodeId: { string: 63 },
      runningShards: { repeated: maxShards },
      shards: { repeated: maxShards },
      // Log replies: lines of engine output, relayed in chunks.
      lines: { repeated: 10_000 },
      text: { string: 65_536 },
    },
  };
}

interface Pending {
  resolve(v: any): void;
  reject(e: LlmgwError): void;
  timer: NodeJS.Timeout;
  lines?: agentV1.LogLine__Output[];
  truncated?: boolean;
}

/**
 * One agent's registered stream, as the inventory sees it: the node's
 * Register, and typed commands whose promises settle with the agent's Ack.
 */
export class AgentSession {
  readonly nodeId: string;
  readonly sessionId: string;
  /** The client certificate's CN; undefined on plaintext. */
  readonly peerCommonName: string | undefined;
  readonly connectedAtMs: number;
  private readonly pending = new Map<string, Pending>();
  private ended = false;

  constructor(
    readonly register: agentV1.Register__Output,
    private readonly call: Duplex,
    private readonly commandTimeoutMs: number,
    now: () => number,
    private readonly onEnded: (session: AgentSession, err: LlmgwError) => void = () => {},
  ) {
    this.nodeId = register.node!.nodeId;
    this.sessionId = register.sessionId;
    this.peerCommonName = peerCommonName(call);
    this.connectedAtMs = now();
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Launches a shard; resolves with the agent's Ack (ACCEPTED, ALREADY_DONE or REJECTED). */
  startShard(spec: agentV1.ShardSpec, opts: { commandId?: string } = {}): Promise<agentV1.Ack__Output> {
    const commandId = opts.commandId ?? randomUUID();
    return this.command(commandId, { start: { commandId, spec } });
  }

  /** Stops a shard (SIGTERM, `graceMs`, SIGKILL of its process group). */
  stopShard(shardId: string, opts: { graceMs?: number; reason?: string; commandId?: string } = {}): Promise<agentV1.Ack__Output> {
    const commandId = opts.commandId ?? randomUUID();
    return this.command(commandId, { stop: { commandId, shardId, graceMs: opts.graceMs ?? 0, reason: opts.reason ?? '' } });
  }

  /** Moves a shard to DRAINING. */
  drainShard(shardId: string, opts: { timeoutMs?: number; reason?: string; commandId?: string } = {}): Promise<agentV1.Ack__Output> {
    const commandId = opts.commandId ?? randomUUID();
    return this.command(commandId, { drain: { commandId, shardId, timeoutMs: opts.timeoutMs ?? 0, reason: opts.reason ?? '' } });
  }

  /**
   * Reads log lines from the agent (its own log or one shard's output),
   * collecting every LogsReply chunk up to eof. An error the agent reports
   * (unknown shard) rejects with its catalogue code.
   */
  logs(req: Omit<agentV1.LogsRequest, 'requestId'>): Promise<LogsResult> {
    const requestId = randomUUID();
    return this.track(requestId, { logs: { ...req, requestId } }, { lines: [], truncated: false });
  }

  /** Ends the stream; with `err`, the agent sees its status (e.g. PERMISSION_DENIED). */
  close(err?: LlmgwError): void {
    if (this.ended) return;
    if (err) endStreamWithError(this.call, err);
    else this.call.end();
    this.finish(err ?? new LlmgwError('LLMGW_ERR_UNAVAILABLE', `stream of node ${this.nodeId} closed`));
  }

  /** @internal Routes an Ack or LogsReply from the agent to its waiting command. */
  settle(msg: agentV1.AgentMessage__Output): boolean {
    if (msg.msg === 'ack' && msg.ack) {
      const p = this.pending.get(msg.ack.refId);
      if (!p) return false;
      this.pending.delete(msg.ack.refId);
      clearTimeout(p.timer);
      p.resolve(msg.ack);
      return true;
    }
    if (msg.msg === 'logs' && msg.logs) {
      const r = msg.logs;
      const p = this.pending.get(r.requestId);
      if (!p) return false;
      p.lines!.push(...r.lines);
      p.truncated = p.truncated || r.truncated;
      if (!r.eof) return true;
      this.pending.delete(r.requestId);
      clearTimeout(p.timer);
      if (r.errorCode) p.reject(new LlmgwError(asCode(r.errorCode), r.errorMessage || r.errorCode));
      else p.resolve({ lines: p.lines!, truncated: p.truncated! });
      return true;
    }
    return false;
  }

  /** @internal The stream is gone: every waiting command fails; reported once. */
  finish(err: LlmgwError): void {
    if (this.ended) return;
    this.ended = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${this.nodeId} disconnected before answering ${id}: ${err.message}`));
    }
    this.pending.clear();
    this.onEnded(this, err);
  }

  private command(commandId: string, msg: agentV1.ControlMessage): Promise<agentV1.Ack__Output> {
    return this.track(commandId, msg, {});
  }

  private track<T>(id: string, msg: agentV1.ControlMessage, extra: Partial<Pending>): Promise<T> {
    if (this.ended) return Promise.reject(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${this.nodeId} is not connected`));
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new LlmgwError('LLMGW_ERR_DEADLINE_EXCEEDED', `node ${this.nodeId} did not answer ${id} within ${this.commandTimeoutMs} ms`));
      }, this.commandTimeoutMs);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer, ...extra });
      this.call.write(msg);
    });
  }
}

const ERROR_CODE = /^LLMGW_ERR_[A-Z_]+$/;
function asCode(c: string): any {
  return ERROR_CODE.test(c) ? c : 'LLMGW_ERR_INTERNAL';
}

const SHARD_STATES: ReadonlySet<string> = new Set(['SHARD_STATE_UNSPECIFIED', ...SHARD_STATE_NAMES.map((n) => `SHARD_STATE_${n.toUpperCase()}`)]);

/** The first shard status whose state is not a ShardState this build knows, as an issue naming the field. */
function unknownState(where: string, list: readonly agentV1.ShardStatus__Output[]): string | undefined {
  const i = list.findIndex((s) => !SHARD_STATES.has(s.state as string));
  return i < 0 ? undefined : `${where}[${i}].state is not a known ShardState`;
}

/**
 * Checks a Register before anything else reads it: sizes first (the first
 * oversized field alone), then every other problem in one INVALID_ARGUMENT.
 * Nothing the agent sent is echoed beyond the length of a valid node id.
 */
export function validateRegister(reg: agentV1.Register__Output, bounds: BoundsSpec = agentMessageBounds()): void {
  const big = findOversized(reg, bounds, 'register');
  if (big) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${big.field}: ${big.detail}`);
  const issues: string[] = [];
  const id = reg.node?.nodeId ?? '';
  if (!reg.node) issues.push('register.node is required');
  else if (id.length > 63) issues.push(`register.node.node_id is ${id.length} characters; at most 63 allowed`);
  else if (!NODE_ID_PATTERN.test(id)) issues.push(`register.node.node_id ${JSON.stringify(id)} must match ${NODE_ID_PATTERN}`);
  if (!reg.sessionId) issues.push('register.session_id is required');
  const badState = unknownState('register.running_shards', reg.runningShards ?? []);
  if (badState) issues.push(badState);
  const shardIds = new Set<string>();
  for (const s of reg.runningShards ?? []) {
    if (!s.shardId) issues.push('register.running_shards[].shard_id is required');
    else if (shardIds.has(s.shardId)) issues.push(`register.running_shards lists ${s.shardId} twice`);
    shardIds.add(s.shardId);
    if (issues.length >= 10) break;
  }
  if (issues.length) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', issues.join('; '));
}

/**
 * Checks a message after Register: sizes (`bounds`), and shard ids present
 * where the message is about shards. Throws INVALID_ARGUMENT naming the field.
 */
export function validateAgentMessage(m: agentV1.AgentMessage__Output, bounds: BoundsSpec = agentMessageBounds()): void {
  const big = findOversized(m, bounds);
  if (big) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `${big.field}: ${big.detail}`);
  if (m.msg === 'heartbeat' && m.heartbeat?.shards.some((s) => !s.shardId))
    throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'heartbeat.shards[].shard_id is required');
  if (m.msg === 'heartbeat' && m.heartbeat && !Number.isSafeInteger(Number(m.heartbeat.sentAtMs)))
    throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'heartbeat.sent_at_ms is out of range');
  if (m.msg === 'shard' && m.shard && !m.shard.shardId) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'shard.shard_id is required');
  const badState =
    m.msg === 'heartbeat'
      ? unknownState('heartbeat.shards', m.heartbeat?.shards ?? [])
      : m.msg === 'shard' && m.shard
        ? unknownState('shard', [m.shard])?.replace('shard[0]', 'shard')
        : undefined;
  if (badState) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', badState);
}

/**
 * The inventory side of `AgentService.Connect`: the first message must be
 * Register (else FAILED_PRECONDITION), it must be well formed (else
 * INVALID_ARGUMENT), and its node id must equal the client certificate's CN
 * (else PERMISSION_DENIED). Then `onRegister` sees an AgentSession, the
 * Register is acknowledged, and later messages are dispatched by kind; Acks
 * and LogsReplies settle the session's pending commands.
 */
export function agentConnectHandler(opts: AgentConnectOptions): grpc.handleBidiStreamingCall<agentV1.AgentMessage__Output, agentV1.ControlMessage> {
  const timeout = opts.commandTimeoutMs ?? 30_000;
  const now = opts.now ?? Date.now;
  const bounds = agentMessageBounds(opts.maxShardsPerNode);
  return (call: Duplex) => {
    let session: AgentSession | undefined;
    let claimed: string | undefined;
    let failed = false;
    // Messages are handled one at a time, in order, even when onRegister is async.
    let chain: Promise<void> = Promise.resolve();
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      const err = isLlmgwError(e) ? e : new LlmgwError('LLMGW_ERR_INTERNAL', 'internal error');
      if (!isLlmgwError(e)) opts.log?.error({ err: e, nodeId: session?.nodeId }, 'agent stream handler failed');
      else
        opts.log?.warn(
          { code: err.code, msg: err.message, nodeId: session?.nodeId ?? claimed, peerCn: session ? undefined : peerCommonName(call) },
          session ? 'agent stream ended by an error' : 'agent stream refused',
        );
      if (!session) opts.onRefused?.(err, claimed, peerCommonName(call));
      endStreamWithError(call, err);
      session?.finish(err);
    };
    const handle = async (m: agentV1.AgentMessage__Output): Promise<void> => {
      if (failed) return;
      if (!session) {
        if (m.msg !== 'register' || !m.register)
          throw new LlmgwError('LLMGW_ERR_FAILED_PRECONDITION', `the first message on an agent stream must be register, got ${m.msg ?? 'nothing'}`);
        const nodeId = m.register.node?.nodeId;
        claimed = nodeId && nodeId.length <= 63 ? nodeId : undefined;
        validateRegister(m.register, bounds);
        assertPeerIdentity(call, m.register.node!.nodeId, { requireCert: opts.requireCert });
        const s = new AgentSession(m.register, call, timeout, now, (ss, err) => opts.onClose?.(ss, err));
        await opts.onRegister(s);
        session = s;
        call.write({ ack: { refId: s.sessionId, result: 'ACK_RESULT_ACCEPTED' } });
        return;
      }
      validateAgentMessage(m, bounds);
      switch (m.msg) {
        case 'register':
          throw new LlmgwError('LLMGW_ERR_FAILED_PRECONDITION', 'register may be sent only once per stream');
        case 'heartbeat':
          opts.onHeartbeat?.(session, m.heartbeat!);
          return;
        case 'shard':
          opts.onShardStatus?.(session, m.shard!);
          return;
        case 'stats':
          opts.onStats?.(session, m.stats!);
          return;
        case 'ack':
        case 'logs':
          session.settle(m);
          return;
        default:
          return;
      }
    };
    call.on('data', (m: agentV1.AgentMessage__Output) => {
      chain = chain.then(() => handle(m)).catch(fail);
    });
    const gone = () => {
      chain = chain.then(() => session?.finish(new LlmgwError('LLMGW_ERR_UNAVAILABLE', `node ${session.nodeId} disconnected`)));
    };
    call.on('end', () => {
      gone();
      call.end();
    });
    call.on('cancelled', gone);
    call.on('error', gone);
  };
}
