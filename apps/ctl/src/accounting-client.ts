import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { type AccountingProto, PROTO_LOADER_OPTIONS, type accountingV1, protoRoot } from '@llmgw/contracts';
import { clientCredentials, fromGrpcError } from '@llmgw/grpc';

import { readFileSync } from 'node:fs';

const PROTO = 'llmgw/accounting/v1/accounting.proto';

/** The TenancyAdmin API of one accounting address, as promises. */
export interface AccountingAdmin {
  call<Res>(method: keyof accountingV1.TenancyAdminClient & string, req: object): Promise<Res>;
  close(): void;
}

/** Strips an optional http:// or grpc:// so `--accounting` accepts what the service logs. */
export function normaliseAddress(addr: string): string {
  return addr.replace(/^(grpc|http|https):\/\//, '').replace(/\/+$/, '');
}

/** PEM files for TLS to the admin APIs; cert+key = mTLS (the audit log then records the certificate's CN). */
export interface CtlTls {
  ca?: string;
  cert?: string;
  key?: string;
}

export function accountingAdmin(address: string, opts: { actor: string; timeoutMs: number; tls?: CtlTls }): AccountingAdmin {
  const def = protoLoader.loadSync(PROTO, { ...PROTO_LOADER_OPTIONS, includeDirs: [protoRoot()] });
  const pkg = (grpc.loadPackageDefinition(def) as unknown as AccountingProto).llmgw.accounting.v1;
  const t = opts.tls;
  const read = (f?: string) => (f ? readFileSync(f) : undefined);
  const creds = t && (t.ca || t.cert || t.key) ? clientCredentials({ tls: { ca: read(t.ca), cert: read(t.cert), key: read(t.key) } }) : grpc.credentials.createInsecure();
  const client = new pkg.TenancyAdmin(normaliseAddress(address), creds) as unknown as accountingV1.TenancyAdminClient;
  return {
    call<Res>(method: string, req: object): Promise<Res> {
      const md = new grpc.Metadata();
      md.set('x-llmgw-actor', opts.actor);
      return new Promise((resolve, reject) => {
        (client as unknown as Record<string, any>)[method](req, md, { deadline: Date.now() + opts.timeoutMs }, (err: grpc.ServiceError | null, res: Res) =>
          err ? reject(fromGrpcError(err)) : resolve(res),
        );
      });
    },
    close() {
      (client as unknown as grpc.Client).close();
    },
  };
}
