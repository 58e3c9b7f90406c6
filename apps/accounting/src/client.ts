import * as grpc from '@grpc/grpc-js';
import type { accountingV1 } from '@llmgw/contracts';
import { fromGrpcError } from '@llmgw/grpc';
import { accountingProto } from './proto';

/** Clients of both accounting services on one channel (tests and in-process callers). */
export function accountingClients(address: string, creds: grpc.ChannelCredentials = grpc.credentials.createInsecure()) {
  const pkg = accountingProto();
  const admin = new pkg.TenancyAdmin(address, creds) as unknown as accountingV1.TenancyAdminClient;
  const resolver = new pkg.KeyResolver(address, creds, { channelOverride: (admin as unknown as grpc.Client).getChannel() as grpc.Channel }) as unknown as accountingV1.KeyResolverClient;
  return {
    admin,
    resolver,
    close() {
      (admin as unknown as grpc.Client).close();
    },
  };
}

/** Promise form of a unary call; failures become LlmgwError (catalogue code kept). */
export function call<Res>(client: object, method: string, req: object, opts: { actor?: string; deadlineMs?: number } = {}): Promise<Res> {
  const md = new grpc.Metadata();
  if (opts.actor) md.set('x-llmgw-actor', opts.actor);
  return new Promise((resolve, reject) => {
    (client as Record<string, any>)[method](req, md, { deadline: Date.now() + (opts.deadlineMs ?? 10_000) }, (err: grpc.ServiceError | null, res: Res) =>
      err ? reject(fromGrpcError(err)) : resolve(res),
    );
  });
}
