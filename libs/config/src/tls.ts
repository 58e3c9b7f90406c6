import { z } from 'zod';

/**
 * The `tls` block of every gRPC server (docs/security.md): PEM file paths,
 * read once at start by the service host. With `client_ca` the server asks
 * every client for a certificate signed by it (mTLS) and authorizes the
 * certificate's role (subject OU) per method.
 */
export const serverTlsSchema = z
  .object({
    /** PEM certificate (chain) whose SANs name every address clients dial. */
    cert: z.string().min(1),
    /** PEM private key (mode 0600). */
    key: z.string().min(1),
    /** CA bundle client certificates must chain to; set = mTLS with role checks. */
    client_ca: z.string().min(1).optional(),
  })
  .strict();

/**
 * The `tls` block of every gRPC client (docs/security.md): the CA that signed
 * the server's certificate, this side's certificate and key (mTLS; its subject
 * OU is the role the server authorizes), and the name to check the server's
 * certificate against when it is not the dialled host.
 */
export const clientTlsSchema = z
  .object({
    ca: z.string().min(1),
    cert: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
    /** A DNS name or IP in the server certificate's SANs; default: the host dialled. */
    server_name: z.string().min(1).optional(),
  })
  .strict()
  .refine((t) => (t.cert === undefined) === (t.key === undefined), 'cert and key go together');

/** A client block that must present a certificate (the node-agent's: CN = node id). */
export const clientMtlsSchema = z
  .object({
    ca: z.string().min(1),
    cert: z.string().min(1),
    key: z.string().min(1),
    server_name: z.string().min(1).optional(),
  })
  .strict();

/**
 * Top-level `insecure`: only `true`, written out, lets a gRPC server listen in
 * plaintext on an address other than loopback (a warning is logged when it does).
 */
export const insecureFlag = () => z.boolean().default(false);

export type ServerTlsConfig = z.output<typeof serverTlsSchema>;
export type ClientTlsConfig = z.output<typeof clientTlsSchema>;
