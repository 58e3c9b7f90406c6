import * as grpc from '@grpc/grpc-js';
import { clientChannelOptions, clientCredentials, type ClientTlsOptions } from '@llmgw/grpc';
import { type FuzzMethod } from './grpc-fuzz-descriptors';

// ---------------------------------------------------------------- calling

export interface RawAnswer {
  /** Status name ("OK", "INVALID_ARGUMENT", …); "HANG" when nothing came within the limit. */
  code: string;
  message: string;
  latencyMs: number;
  /** A response message arrived (streams: the first one settles the call). */
  data: boolean;
}

export interface RawCallOptions {
  /** No answer within this long is a hang; default 5 s. */
  hangMs?: number;
  channelOptions?: grpc.ChannelOptions;
}

const passthrough = (b: Buffer) => b;

/**
 * One call with raw request frames on its own connection (a local subchannel
 * pool, so a wedged connection cannot stall the next case). A unary or
 * server-streaming call settles at its first response or status; a client
 * stream writes every frame, half-closes and settles at its status (or, with
 * one frame, at its first response).
 */
export function callRaw(
  address: string,
  tls: ClientTlsOptions | undefined,
  m: Pick<FuzzMethod, 'path' | 'requestStream' | 'responseStream'>,
  frames: Buffer[],
  opts: RawCallOptions = {},
): Promise<RawAnswer> {
  const hangMs = opts.hangMs ?? 5_000;
  const client = new grpc.Client(address, clientCredentials({ tls }), {
    ...clientChannelOptions({ tls, address }),
    'grpc.use_local_subchannel_pool': 1,
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    ...opts.channelOptions,
  });
  const t0 = performance.now();
  // The deadline is the hang limit plus a margin: a DEADLINE_EXCEEDED we set ourselves is still a hang.
  const deadline = new Date(Date.now() + hangMs + 1_000);
  return new Promise<RawAnswer>((resolve) => {
    let settled = false;
    let call: { cancel(): void } | undefined;
    const settle = (code: string, message: string, data = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const latencyMs = performance.now() - t0;
      call?.cancel();
      client.close();
      resolve({ code, message, latencyMs, data });
    };
    const timer = setTimeout(() => settle('HANG', `no answer within ${hangMs} ms`), hangMs);
    const onErr = (e: grpc.ServiceError) => settle(grpc.status[e.code] ?? String(e.code), e.details ?? e.message);
    const md = new grpc.Metadata();
    if (!m.requestStream && !m.responseStream) {
      call = client.makeUnaryRequest(m.path, passthrough, passthrough, frames[0] ?? Buffer.alloc(0), md, { deadline }, (err) =>
        err ? onErr(err) : settle('OK', '', true),
      );
      return;
    }
    if (!m.requestStream) {
      const s = client.makeServerStreamRequest(m.path, passthrough, passthrough, frames[0] ?? Buffer.alloc(0), md, { deadline });
      call = s;
      s.on('data', () => settle('OK', '', true));
      s.on('error', onErr);
      s.on('status', (st: grpc.StatusObject) => settle(grpc.status[st.code], st.details));
      return;
    }
    const settleOnData = frames.length <= 1;
    const s = m.responseStream
      ? client.makeBidiStreamRequest(m.path, passthrough, passthrough, md, { deadline })
      : client.makeClientStreamRequest(m.path, passthrough, passthrough, md, { deadline }, (err) => (err ? onErr(err) : settle('OK', '', true)));
    call = s;
    if (m.responseStream) (s as grpc.ClientDuplexStream<Buffer, Buffer>).on('data', () => settleOnData && settle('OK', '', true));
    s.on('error', onErr);
    s.on('status', (st: grpc.StatusObject) => settle(grpc.status[st.code], st.details));
    for (const f of frames) s.write(f);
    s.end();
  });
}
