import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_LOADER_OPTIONS } from '@llmgw/contracts';

/** grpc.health.v1 serving states (the standard health protocol). */
export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

// The standard grpc.health.v1 protocol, so grpc_health_probe and load
// balancers work unchanged; inlined because proto/ holds only llmgw's own APIs.
const HEALTH_PROTO = {
  nested: {
    grpc: {
      nested: {
        health: {
          nested: {
            v1: {
              nested: {
                HealthCheckRequest: { fields: { service: { type: 'string', id: 1 } } },
                HealthCheckResponse: {
                  fields: { status: { type: 'ServingStatus', id: 1 } },
                  nested: { ServingStatus: { values: { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } } },
                },
                Health: {
                  methods: {
                    Check: { requestType: 'HealthCheckRequest', responseType: 'HealthCheckResponse' },
                    Watch: { requestType: 'HealthCheckRequest', responseType: 'HealthCheckResponse', responseStream: true },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

const pkg = grpc.loadPackageDefinition(protoLoader.fromJSON(HEALTH_PROTO as Parameters<typeof protoLoader.fromJSON>[0], PROTO_LOADER_OPTIONS)) as any;
/** The grpc.health.v1.Health service definition. */
export const HEALTH_SERVICE: grpc.ServiceDefinition = pkg.grpc.health.v1.Health.service;
const HealthClientCtor: typeof grpc.Client = pkg.grpc.health.v1.Health;

/**
 * Serving state per service name ("" = the whole server). Check answers
 * NOT_FOUND for a name never set, as the protocol asks; Watch streams changes.
 */
export class HealthService {
  private readonly status = new Map<string, ServingStatus>();
  private readonly watchers = new Set<{ service: string; call: grpc.ServerWritableStream<any, any> }>();

  constructor(initial: ServingStatus = 'SERVING') {
    this.status.set('', initial);
  }

  set(service: string, status: ServingStatus): void {
    this.status.set(service, status);
    for (const w of this.watchers) if (w.service === service) w.call.write({ status });
  }

  /** Marks every service NOT_SERVING (call at the start of a graceful shutdown). */
  shutdown(): void {
    for (const s of [...this.status.keys()]) this.set(s, 'NOT_SERVING');
    for (const w of this.watchers) w.call.end();
    this.watchers.clear();
  }

  get(service = ''): ServingStatus | undefined {
    return this.status.get(service);
  }

  addTo(server: grpc.Server): void {
    server.addService(HEALTH_SERVICE, {
      Check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        const s = this.status.get(call.request.service);
        if (s === undefined) cb({ code: grpc.status.NOT_FOUND, details: `unknown service ${call.request.service}` });
        else cb(null, { status: s });
      },
      Watch: (call: grpc.ServerWritableStream<{ service: string }, unknown>) => {
        const w = { service: call.request.service, call };
        this.watchers.add(w);
        call.write({ status: this.status.get(w.service) ?? 'SERVICE_UNKNOWN' });
        call.on('cancelled', () => this.watchers.delete(w));
      },
    });
  }
}

/** One health Check against `address`; rejects with the gRPC error when the call fails. */
export function checkHealth(
  address: string,
  credentials: grpc.ChannelCredentials,
  service = '',
  opts: { deadlineMs?: number; channelOptions?: grpc.ChannelOptions } = {},
): Promise<ServingStatus> {
  const client = new HealthClientCtor(address, credentials, opts.channelOptions);
  return new Promise<ServingStatus>((resolve, reject) => {
    (client as any).Check(
      { service },
      { deadline: new Date(Date.now() + (opts.deadlineMs ?? 5_000)) },
      (err: grpc.ServiceError | null, res: { status: ServingStatus }) => {
        client.close();
        if (err) reject(err);
        else resolve(res.status);
      },
    );
  });
}
