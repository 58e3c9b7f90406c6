import { HEALTH_SERVICE } from '@llmgw/grpc';
import { controlServiceDefinition } from '@llmgw/control-rpc';
import { createLogger } from '@llmgw/observability';
import { rawCall, refusals, spawnRole, testPki, waitUntil, type SpawnedRole, type TestPki } from '@llmgw/testing';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { stringify } from 'yaml';
import { start } from '../src/service';

const quiet = createLogger({ service: 'ps-tls-test', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

// The placement-scheduler's control port and its link to inventory, over mTLS (docs/security.md).
describe('placement-scheduler over mTLS', () => {
  let pki: TestPki;
  let inv: SpawnedRole;
  let sched: Awaited<ReturnType<typeof start>>;
  let dir: string;

  beforeAll(async () => {
    pki = await testPki();
    dir = mkdtempSync(join(tmpdir(), 'llmgw-ps-tls-'));
    const catalog = join(dir, 'catalog.yaml');
    writeFileSync(
      catalog,
      'models:\n  - name: llama\n    source: sim/llama\n    scaling: { min: 0, max: 1 }\n    profiles: [{ name: p, gpu_class: h100-80g, engine: sim }]\n',
    );
    const invCfg = join(dir, 'inventory.yaml');
    writeFileSync(
      invCfg,
      stringify({
        listen: '127.0.0.1:0',
        agent_listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        tls: pki.serverTls(),
        agent_tls: pki.serverTls(),
        log_level: 'info',
      }),
    );
    inv = await spawnRole('inventory', ['--config', invCfg], { timeoutMs: 60_000 });
    const invAddress = inv.urls.grpc.replace(/^http:\/\//, '');
    // inventory.tls holds file PATHS, read by the host (they were once handed to gRPC as PEM text: "no start line").
    sched = await start({
      log: quiet,
      config: {
        catalog,
        listen: '127.0.0.1:0',
        admin_listen: '127.0.0.1:0',
        tls: pki.serverTls(),
        inventory: { address: invAddress, tls: pki.clientTlsFiles('placement-scheduler') },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await sched?.close();
    await inv?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches inventory over mTLS with its client certificate (file paths in inventory.tls)', async () => {
    await waitUntil(
      async () => {
        const r = await sched.ready();
        return r === true || (typeof r === 'object' && r.ready);
      },
      'the fleet snapshot over mTLS',
      { timeoutMs: 10_000 },
    );
  });

  it('control port: ControlService for operators and the portal only', async () => {
    const def = controlServiceDefinition();
    const address = sched.urls.control.replace(/^http:\/\//, '');
    expect(await rawCall(address, pki.clientTls('operator'), def, 'ListModels', {})).toMatchObject({
      code: 'OK',
      response: { models: [expect.objectContaining({ name: 'llama' })] },
    });
    expect((await rawCall(address, pki.clientTls('portal'), def, 'ListNodes', {})).code).toBe('OK');
    const r = await refusals(pki, address, def, 'SetModelTarget', { model: 'llama', replicas: 1 }, 'node');
    expect(r.noCert.code).toBe('UNAVAILABLE');
    expect(r.otherCa.code).toBe('UNAVAILABLE');
    expect(r.plaintext.code).toBe('UNAVAILABLE');
    expect(r.noRole.code).toBe('PERMISSION_DENIED');
    expect(r.wrongRole).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'wrong role "node" (CN=test-node) for llmgw.control.v1.ControlService/SetModelTarget; it needs role operator or portal',
    });
    expect((await rawCall(address, pki.clientTls('router'), def, 'ListModels', {})).code).toBe('PERMISSION_DENIED');
    // gRPC health, which it did not serve before, to any certificate of the CA.
    expect(await rawCall(address, pki.clientTls('router'), HEALTH_SERVICE, 'Check', { service: 'llmgw.control.v1.ControlService' })).toMatchObject({
      code: 'OK',
      response: { status: 'SERVING' },
    });
  });
});
