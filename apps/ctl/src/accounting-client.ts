import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { type AccountingProto, PROTO_LOADER_OPTIONS, type accountingV1, protoRoot } from '@llmgw/contracts';
import { fromGrpcError } from '@llmgw/grpc';

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

export function accountingAdmin(address: string, opts: { actor: string; timeoutMs: number; creds?: grpc.ChannelCredentials }): AccountingAdmin {
  const def = protoLoader.loadSync(PROTO, { ...PROTO_LOADER_OPTIONS, includeDirs: [protoRoot()] });
  const pkg = (grpc.loadPackageDefinition(def) as unknown as AccountingProto).llmgw.accounting.v1;
  const client = new pkg.TenancyAdmin(normaliseAddress(address), opts.creds ?? grpc.credentials.createInsecure()) as unknown as accountingV1.TenancyAdminClient;
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
