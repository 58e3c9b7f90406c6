import * as grpc from '@grpc/grpc-js';
import { agentV1, loadProto } from '@llmgw/contracts';
import { LlmgwError } from '@llmgw/errors';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HealthService,
  assertPeerIdentity,
  checkHealth,
  clientCredentials,
  createServer,
  endStreamWithError,
  fromGrpcError,
  initCa,
  issueCert,
  listen,
  makeClient,
  readCertFiles,
  shutdown,
} from './index';
import { waitUntil } from '@llmgw/contracts/wait';

type Duplex = grpc.ServerDuplexStream<agentV1.AgentMessage__Output, agentV1.ControlMessage>;

// A minimal inventory: the first message must be Register, its node id must
// match the certificate CN; then it acknowledges and sends one StartShard.
function connectHandler(seen: agentV1.AgentMessage__Output[]) {
  return (call: Duplex) => {
    let registered = false;
    call.on('data', (m: agentV1.AgentMessage__Output) => {
      seen.push(m);
      try {
        if (!registered) {
          if (m.msg !== 'register') throw new LlmgwError('LLMGW_ERR_FAILED_PRECONDITION', 'the first message must be register');
          assertPeerIdentity(call, m.register!.node!.nodeId);
          registered = true;
          call.write({ ack: { refId: m.register!.sessionId, result: 'ACK_RESULT_ACCEPTED' } });
          call.write({ start: { commandId: 'cmd-1', spec: { shardId: 'r1-r0', replicaId: 'r1', gpuIndices: [0, 1], startupTimeoutMs: 1_200_000 } } });
        }
      } catch (e) {
        endStreamWithError(call, e);
      }
    });
    call.on('end', () => call.end());
  };
}

describe('AgentService.Connect over mTLS', () => {
  let dir: string;
  let server: grpc.Server;
  let addr: string;
  let ca: Buffer;
  let node: { cert: Buffer; key: Buffer };
  const seen: agentV1.AgentMessage__Output[] = [];
  const health = new HealthService('SERVING');
  const proto = loadProto('llmgw/agent/v1/agent.proto');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-agent-'));
    const caFiles = await initCa({ dir });
    ca = (await readCertFiles(caFiles)).cert;
    const srv = await readCertFiles(await issueCert({ ca: caFiles, dir, name: 'inventory', commonName: 'inventory', sans: ['127.0.0.1'], usage: 'server' }));
    node = await readCertFiles(await issueCert({ ca: caFiles, dir, name: 'gpu-a-01', commonName: 'gpu-a-01', usage: 'client' }));
    server = createServer();
    server.addService(proto.llmgw.agent.v1.AgentService.service, { Connect: connectHandler(seen) });
    health.set('llmgw.agent.v1.AgentService', 'SERVING');
    health.addTo(server);
    addr = `127.0.0.1:${await listen(server, '127.0.0.1', 0, { tls: { ca, ...srv, requireClientCert: true } })}`;
  });
  afterAll(async () => {
    await shutdown(server, 500);
    rmSync(dir, { recursive: true, force: true });
  });

  function connect(first: agentV1.AgentMessage): Promise<{ got: agentV1.ControlMessage__Output[]; status: grpc.StatusObject | grpc.ServiceError }> {
    const client = makeClient(proto.llmgw.agent.v1.AgentService, addr, { tls: { ca, ...node } });
    const call = client.Connect();
    const got: agentV1.ControlMessage__Output[] = [];
    return new Promise((resolve) => {
      call.on('data', (m) => {
        got.push(m);
        if (m.msg === 'start') {
          call.write({ ack: { refId: m.start!.commandId, result: 'ACK_RESULT_ACCEPTED', shardId: m.start!.spec!.shardId } });
          call.end();
        }
      });
      call.on('error', (e) => {
        client.close();
        resolve({ got, status: e as grpc.ServiceError });
      });
      call.on('status', (s) => {
        if (s.code === grpc.status.OK) {
          client.close();
          resolve({ got, status: s });
        }
      });
      call.write(first);
    });
  }

  it('registers, is acknowledged, receives a command and acks it', async () => {
    seen.length = 0;
    const { got, status } = await connect({
      register: { node: { nodeId: 'gpu-a-01', hostname: 'gpu-a-01' }, sessionId: 'sess-1', runningShards: [{ shardId: 'old-r0', state: 'SHARD_STATE_READY' }] },
    });
    expect(status.code).toBe(grpc.status.OK);
    expect(got.map((m) => m.msg)).toEqual(['ack', 'start']);
    expect(got[0].ack).toMatchObject({ refId: 'sess-1', result: 'ACK_RESULT_ACCEPTED' });
    expect(got[1].start?.spec).toMatchObject({ shardId: 'r1-r0', gpuIndices: [0, 1], startupTimeoutMs: 1_200_000, nnodes: 0 });
    await waitUntil(() => seen.length >= 2, 'the register and the ack at the server', { seen: () => seen.length });
    expect(seen[0].register?.runningShards[0]).toMatchObject({ shardId: 'old-r0', state: 'SHARD_STATE_READY' });
    expect(seen[1]).toMatchObject({ msg: 'ack', ack: { refId: 'cmd-1', shardId: 'r1-r0' } });
  });

  it.each([
    [
      'a node id that differs from the certificate CN',
      { register: { node: { nodeId: 'gpu-b-07' }, sessionId: 's' } },
      grpc.status.PERMISSION_DENIED,
      'LLMGW_ERR_PERMISSION_DENIED',
    ],
    ['a heartbeat before register', { heartbeat: { seq: 1 } }, grpc.status.FAILED_PRECONDITION, 'LLMGW_ERR_FAILED_PRECONDITION'],
  ])('refuses %s', async (_what, first, code, llmgw) => {
    const { got, status } = await connect(first as agentV1.AgentMessage);
    expect(got).toEqual([]);
    expect(status.code).toBe(code);
    expect(fromGrpcError(status).code).toBe(llmgw);
  });

  it('answers health checks over the same port', async () => {
    const creds = clientCredentials({ tls: { ca, ...node } });
    expect(await checkHealth(addr, creds)).toBe('SERVING');
    expect(await checkHealth(addr, creds, 'llmgw.agent.v1.AgentService')).toBe('SERVING');
    await expect(checkHealth(addr, creds, 'no.such.Service')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    health.shutdown();
    expect(await checkHealth(addr, creds)).toBe('NOT_SERVING');
  });
});
