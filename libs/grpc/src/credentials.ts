import * as grpc from '@grpc/grpc-js';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
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

/**
 * Insecure without `tls`; TLS (or mTLS when cert+key are given) with it. The
 * server certificate is checked against the dialled host, or `serverName`;
 * an IP is checked against the certificate's IP SANs.
 */
export function clientCredentials(opts: { tls?: ClientTlsOptions } = {}): grpc.ChannelCredentials {
  const tls = opts.tls;
  if (!tls) return grpc.credentials.createInsecure();
  if ((tls.cert === undefined) !== (tls.key === undefined)) throw new Error('clientCredentials: cert and key go together');
  return grpc.credentials.createSsl(buf(tls.ca), buf(tls.key), buf(tls.cert), {
    checkServerIdentity: (host, cert) => checkServerIdentity(ipFromTlsName(host) ?? host, cert),
  });
}

// TLS forbids an IP as the SNI server name (RFC 6066; Node warns DEP0123 when
// it is set), yet grpc-js sends the dialled host or the override as SNI. For an
// IP we send a name under the reserved .invalid domain that spells the IP, and
// checkServerIdentity (above) turns it back into the IP to verify against.
const IP_NAME = /^ip-([0-9a-f.]+)\.llmgw\.invalid$/;

/** The SNI name standing for an IP (its text in hex, in labels of at most 60). */
export function tlsNameForIp(ip: string): string {
  const hex = Buffer.from(ip).toString('hex');
  return `ip-${hex.match(/.{1,60}/g)!.join('.')}.llmgw.invalid`;
}

/** The IP a `tlsNameForIp` name stands for; undefined for any other name. */
export function ipFromTlsName(name: string): string | undefined {
  const m = IP_NAME.exec(name);
  if (!m) return undefined;
  const ip = Buffer.from(m[1].replace(/\./g, ''), 'hex').toString();
  return isIP(ip) ? ip : undefined;
}

/** The host of a gRPC target: "host:port", "[v6]:port", "dns:///host:port", "http://host:port". */
export function targetHost(address: string): string {
  const rest = address.replace(/^[a-z][a-z0-9+.-]*:(\/\/\/?)?/i, '');
  const v6 = /^\[([^\]]+)\]/.exec(rest);
  if (v6) return v6[1];
  const i = rest.lastIndexOf(':');
  return i > 0 && rest.indexOf(':') === i ? rest.slice(0, i) : rest;
}

/**
 * Channel options a client needs alongside `clientCredentials`: the name the
 * server certificate is checked against (`serverName`, else the host of
 * `address`), never an IP as the TLS server name.
 */
export function clientChannelOptions(opts: { tls?: ClientTlsOptions; address?: string } = {}): grpc.ChannelOptions {
  if (!opts.tls) return {};
  const name = opts.tls.serverName;
  if (name) return { 'grpc.ssl_target_name_override': isIP(name) ? tlsNameForIp(name) : name, 'grpc.default_authority': name };
  const host = opts.address === undefined ? undefined : targetHost(opts.address);
  return host && isIP(host) ? { 'grpc.ssl_target_name_override': tlsNameForIp(host) } : {};
}

/**
 * The common name of the client certificate on an mTLS call, or undefined on
 * plaintext / server-only TLS. The inventory compares it with the node id an
 * agent claims (docs/security.md).
 */
export function peerCommonName(call: { getAuthContext(): { sslPeerCertificate?: { subject?: { CN?: string | string[] } } } | null }): string | undefined {
  const cn = call.getAuthContext()?.sslPeerCertificate?.subject?.CN;
  return Array.isArray(cn) ? cn[0] : cn || undefined;
}

/**
 * Refuses a call whose mTLS identity differs from the identity it claims
 * (the inventory's check that Register.node.node_id equals the agent's
 * certificate CN, docs/security.md). Without a client certificate (plaintext, on a
 * trusted network) there is nothing to compare and the claim stands unless
 * `requireCert` is set.
 */
export function assertPeerIdentity(call: Parameters<typeof peerCommonName>[0], claimed: string, opts: { requireCert?: boolean } = {}): void {
  const cn = peerCommonName(call);
  if (cn === undefined) {
    if (opts.requireCert) throw new LlmgwError('LLMGW_ERR_AUTH_INVALID', 'a client certificate is required');
    return;
  }
  if (cn !== claimed)
    throw new LlmgwError('LLMGW_ERR_PERMISSION_DENIED', `claimed identity ${JSON.stringify(claimed)} does not match certificate CN ${JSON.stringify(cn)}`);
}

/**
 * A generated client constructed with the right credentials and channel
 * options for `tls` (plaintext when absent).
 */
export function makeClient<C>(
  Ctor: new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => C,
  address: string,
  opts: { tls?: ClientTlsOptions; channelOptions?: grpc.ChannelOptions } = {},
): C {
  return new Ctor(address, clientCredentials(opts), { ...clientChannelOptions({ ...opts, address }), ...opts.channelOptions });
}
