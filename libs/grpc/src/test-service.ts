import * as grpc from '@grpc/grpc-js';

// A JSON-serialised service for this lib's own tests, so they need no proto.
const json = {
  requestSerialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
  requestDeserialize: (b: Buffer) => JSON.parse(b.toString()),
  responseSerialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
  responseDeserialize: (b: Buffer) => JSON.parse(b.toString()),
};

export const TEST_SERVICE = {
  call: { path: '/llmgw.test.v1.Test/Call', requestStream: false, responseStream: false, originalName: 'call', ...json },
  watch: { path: '/llmgw.test.v1.Test/Watch', requestStream: false, responseStream: true, originalName: 'watch', ...json },
} as grpc.ServiceDefinition;

export const TestClient = grpc.makeGenericClientConstructor(TEST_SERVICE, 'Test');

export function callAsync(client: grpc.Client, req: unknown, opts: grpc.CallOptions = {}, md = new grpc.Metadata()): Promise<any> {
  return new Promise((resolve, reject) => {
    (client as any).call(req, md, opts, (err: grpc.ServiceError | null, res: unknown) => (err ? reject(err) : resolve(res)));
  });
}
