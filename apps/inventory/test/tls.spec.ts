import { agentServiceDefinition } from '@llmgw/agent-rpc';
import { HEALTH_SERVICE } from '@llmgw/grpc';
import { controlServiceDefinition } from '@llmgw/control-rpc';
import { inventoryServiceDefinition } from '@llmgw/inventory-rpc';
import { createLogger } from '@llmgw/observability';
import { rawCall, refusals, SimAgent, testPki, type TestPki } from '@llmgw/testing';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { start, type RunningInventory } from '../src/service';

const lines: string[] = [];
const log = createLogger({ service: 'inventory-tls-test', level: 'warn', destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) });

// Both gRPC ports of inventory over mTLS, by role (docs/security.md).
describe('inventory ports over mTLS', () => {
  let pki: TestPki;
  let inv: RunningInventory;
  const agents: SimAgent[] = [];

  beforeAll(async () => {
    pki = await testPki();
    inv = await start({
      log,
      config: {
        listen: '127.0.0.1:0',
        agent_listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        tls: pki.serverTls(),
        agent_tls: pki.serverTls(),
        log_level: 'warn',
      },
    });
  }, 60_000);
  afterAll(async () => {
    for (const a of agents) a.close();
    await inv?.close();
  });

  it('internal port: InventoryService only for the placement-scheduler', async () => {
    const def = inventoryServiceDefinition();
    expect(await rawCall(inv.address, pki.clientTls('placement-scheduler'), def, 'ListNodes', {})).toMatchObject({ code: 'OK', response: { nodes: [] } });
    const r = await refusals(pki, inv.address, def, 'ListNodes', {}, 'router');
    expect(r.noCert.code).toBe('UNAVAILABLE');
    expect(r.otherCa.code).toBe('UNAVAILABLE');
    expect(r.plaintext.code).toBe('UNAVAILABLE');
    expect(r.noRole).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/carries no role/) });
    expect(r.wrongRole).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'wrong role "router" (CN=test-router) for llmgw.inventory.v1.InventoryService/ListNodes; it needs role placement-scheduler',
    });
    // A node may not read the fleet either.
    expect((await rawCall(inv.address, pki.clientTls('node'), def, 'ListNodes', {})).code).toBe('PERMISSION_DENIED');
  });

  it('internal port: node intents only from the placement-scheduler (operators go through its ControlService)', async () => {
    const def = inventoryServiceDefinition();
    const r = await refusals(pki, inv.address, def, 'SetNodeIntent', { nodeId: 'x' }, 'operator');
    expect(r.wrongRole).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: expect.stringMatching(/^wrong role "operator" .*InventoryService\/SetNodeIntent; it needs role placement-scheduler$/),
    });
    expect(r.noCert.code).toBe('UNAVAILABLE');
    expect(r.otherCa.code).toBe('UNAVAILABLE');
    // Inventory serves no ControlService at all any more: one address per role.
    expect((await rawCall(inv.address, pki.clientTls('operator'), controlServiceDefinition(), 'ListNodes', {})).code).not.toBe('OK');
  });

  it('fleet port: only nodes, each as itself', async () => {
    const def = agentServiceDefinition();
    const r = await refusals(pki, inv.agentAddress, def, 'Connect', {}, 'router');
    expect(r.noCert.code).toBe('UNAVAILABLE');
    expect(r.otherCa.code).toBe('UNAVAILABLE');
    expect(r.plaintext.code).toBe('UNAVAILABLE');
    expect(r.noRole.code).toBe('PERMISSION_DENIED');
    expect(r.wrongRole).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: expect.stringMatching(/^wrong role "router" .*AgentService\/Connect; it needs role node$/),
    });
    // An operator certificate cannot pose as an agent.
    expect((await rawCall(inv.agentAddress, pki.clientTls('operator'), def, 'Connect', {})).code).toBe('PERMISSION_DENIED');

    const ok = new SimAgent({
      address: inv.agentAddress,
      nodeId: 'test-node-1',
      tls: { ...pki.clientTls(), cert: readFileSync(pki.node('test-node-1').cert), key: readFileSync(pki.node('test-node-1').key) },
      heartbeatIntervalMs: 200,
    });
    agents.push(ok);
    await ok.start(10_000);
    expect(ok.registered).toBe(true);
    // Node 1's certificate claiming node 2: refused by the CN check.
    const spoof = new SimAgent({
      address: inv.agentAddress,
      nodeId: 'test-node-2',
      reconnect: false,
      tls: { ...pki.clientTls(), cert: readFileSync(pki.node('test-node-1').cert), key: readFileSync(pki.node('test-node-1').key) },
    });
    agents.push(spoof);
    await expect(spoof.start(10_000)).rejects.toMatchObject({ code: 7 });
  });

  it('answers gRPC health on both ports to any certificate of its CA', async () => {
    for (const a of [inv.address, inv.agentAddress]) {
      expect(await rawCall(a, pki.clientTls('router'), HEALTH_SERVICE, 'Check', { service: '' })).toMatchObject({
        code: 'OK',
        response: { status: 'SERVING' },
      });
    }
    expect(lines.join('')).toMatch(/TLS handshake refused/);
  });
});
