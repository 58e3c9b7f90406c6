import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { type AccountingProto, type Principal, PROTO_LOADER_OPTIONS, type accountingV1, protoRoot } from '@llmgw/contracts';
import { clientCredentials, fromGrpcError } from '@llmgw/grpc';
import { readFileSync } from 'node:fs';

/** Wire → Principal. */
export function principalFromWire(r: accountingV1.ResolvedKey__Output, defaultBand: string): Principal {
  const l = r.limits;
  return {
    keyId: r.keyId, keyPrefix: r.keyPrefix, projectId: r.projectId, teamId: r.teamId, orgId: r.orgId,
    band: r.band || defaultBand,
    ...(r.routingProfile ? { routingProfile: r.routingProfile } : {}),
    ...(r.expiresAtMs ? { expiresAt: r.expiresAtMs } : {}),
    limits: {
      rpm: (l?.rpm ?? []).map((x) => ({ scope: x.scope, limit: x.limit })),
      tpm: (l?.tpm ?? []).map((x) => ({ scope: x.scope, limit: x.limit })),
      budgets: (l?.budgets ?? []).map((x) => ({ scope: x.scope, limitMicros: x.limitMicros, period: x.period === 'day' ? 'day' : 'month' })),
      ...(l?.modelsRestricted ? { allowedModels: [...l.allowedModels] } : {}),
    },
  };
}

/** Accounting's KeyResolver; `resolve` throws LlmgwError (NOT_FOUND for a refused key, UNAVAILABLE when down). */
export class ResolverClient {
  private readonly client: accountingV1.KeyResolverClient;

  constructor(address: string, tls?: { ca: string; cert?: string; key?: string }) {
    const def = protoLoader.loadSync('llmgw/accounting/v1/accounting.proto', { ...PROTO_LOADER_OPTIONS, includeDirs: [protoRoot()] });
    const pkg = (grpc.loadPackageDefinition(def) as unknown as AccountingProto).llmgw.accounting.v1;
    const creds = clientCredentials(tls ? { tls: { ca: readFileSync(tls.ca), ...(tls.cert ? { cert: readFileSync(tls.cert) } : {}), ...(tls.key ? { key: readFileSync(tls.key) } : {}) } } : {});
    this.client = new pkg.KeyResolver(address.replace(/^(grpc|http):\/\//, ''), creds) as unknown as accountingV1.KeyResolverClient;
  }

  resolve(keyHash: string, timeoutMs: number): Promise<accountingV1.ResolvedKey__Output> {
    return new Promise((resolve, reject) => {
      this.client.ResolveKey({ keyHash }, { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(fromGrpcError(err)) : resolve(res!)));
    });
  }

  close(): void {
    (this.client as unknown as grpc.Client).close();
  }
}
