import * as grpc from '@grpc/grpc-js';
import { LlmgwError } from '@llmgw/errors';

/** PEM material, as text or bytes. */
export type Pem = string | Buffer;

/** TLS material for a server. */
export interface ServerTlsOptions {
  /** CA that signs client certificates (required when `requireClientCert`). */
  ca?: Pem;
  cert: Pem;
  key: Pem;
  /** mTLS: refuse clients without a certificate signed by `ca`. */
  requireClientCert?: boolean;
}

/** TLS material for a client; `cert`+`key` present → mTLS. */
export interface ClientTlsOptions {
  /** CA that signed the server certificate; system roots when absent. */
  ca?: Pem;
  cert?: Pem;
  key?: Pem;
  /** Overrides the name checked against the server certificate's SANs. */
  serverName?: string;
}

const buf = (p: Pem | undefined): Buffer | null => (p === undefined ? null : Buffer.isBuffer(p) ? p : Buffer.from(p));

/** Insecure (plaintext HTTP/2) without `tls`; TLS or mTLS with it. */
export function serverCredentials(opts: { tls?: ServerTlsOptions } = {}): grpc.ServerCredentials {
  const tls = opts.tls;
  if (!tls) return grpc.ServerCredentials.createInsecure();
  if (tls.requireClientCert && !tls.ca) throw new Error('serverCredentials: requireClientCert needs a ca');
  return grpc.ServerCredentials.createSsl(buf(tls.ca), [{ cert_chain: buf(tls.cert)!, private_key: buf(tls.key)! }], tls.requireClientCert ?? false);
}

/** Insecure without `tls`; TLS (or mTLS when cert+key are given) with it. */
export function clientCredentials(opts: { tls?: ClientTlsOptions } = {}): grpc.ChannelCredentials {
  const tls = opts.tls;
  if (!tls) return grpc.credentials.createInsecure();
  if ((tls.cert === undefined) !== (tls.key === undefined)) throw new Error('clientCredentials: cert and key go together');
  return grpc.credentials.createSsl(buf(tls.ca), buf(tls.key), buf(tls.cert));
}

/** Channel options a client needs alongside `clientCredentials` (the SNI/SAN override). */
export function clientChannelOptions(opts: { tls?: ClientTlsOptions } = {}): grpc.ChannelOptions {
  return opts.tls?.serverName ? { 'grpc.ssl_target_name_override': opts.tls.serverName, 'grpc.default_authority': opts.tls.serverName } : {};
}

/**
 * The common name of the client certificate on an mTLS call, or undefined on
 * plaintext / server-only TLS. The inventory compares it with the node id an
 * agent claims (plan §5.6).
 */
export function peerCommonName(call: { getAuthContext(): { sslPeerCertificate?: { subject?: { CN?: string | string[] } } } | null }): string | undefined {
  const cn = call.getAuthContext()?.sslPeerCertificate?.subject?.CN;
  return Array.isArray(cn) ? cn[0] : cn || undefined;
}

/**
 * Refuses a call whose mTLS identity differs from the identity it claims
 * (the inventory's check that Register.node.node_id equals the agent's
 * certificate CN, plan §5.6). Without a client certificate (plaintext, on a
 * trusted network) there is nothing to compare and the claim stands unless
 * `requireCert` is set.
 */
export function assertPeerIdentity(call: Parameters<typeof peerCommonName>[0], claimed: string, opts: { requireCert?: boolean } = {}): void {
  const cn = peerCommonName(call);
  if (cn === undefined) {
    if (opts.requireCert) throw new LlmgwError('LLMGW_ERR_AUTH_INVALID', 'a client certificate is required');
    return;
  }
  if (cn !== claimed) throw new LlmgwError('LLMGW_ERR_PERMISSION_DENIED', `claimed identity ${JSON.stringify(claimed)} does not match certificate CN ${JSON.stringify(cn)}`);
}

/**
 * A generated client constructed with the right credentials and channel
 * options for `tls` (plaintext when absent).
 */
export function makeClient<C>(Ctor: new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => C, address: string, opts: { tls?: ClientTlsOptions; channelOptions?: grpc.ChannelOptions } = {}): C {
  return new Ctor(address, clientCredentials(opts), { ...clientChannelOptions(opts), ...opts.channelOptions });
}
