import { admissionServiceDefinition } from '@llmgw/admission-rpc';
import { HEALTH_SERVICE } from '@llmgw/grpc';
import { createLogger } from '@llmgw/observability';
import { rawCall, refusals, testPki, type TestPki } from '@llmgw/testing';
import { Writable } from 'node:stream';
import { start, type RunningAdmission } from '../src/service';

const quiet = createLogger({ service: 'admission-tls-test', level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

// Admission's gRPC port over mTLS, by role (docs/security.md).
describe('admission port over mTLS', () => {
  let pki: TestPki;
  let adm: RunningAdmission;
  const def = admissionServiceDefinition();

  beforeAll(async () => {
    pki = await testPki();
    adm = await start({ log: quiet, config: { listen: '127.0.0.1:0', admin_listen: '127.0.0.1:0', tls: pki.serverTls() } });
  }, 60_000);
  afterAll(() => adm?.close());

  it('serves routers', async () => {
    expect(await rawCall(adm.url, pki.clientTls('router'), def, 'Status', {})).toMatchObject({ code: 'OK' });
    // Acquire reaches the service (whatever it answers an empty request, it is not the port refusing).
    const acquire = await rawCall(adm.url, pki.clientTls('router'), def, 'Acquire', {});
    expect(acquire.message).not.toMatch(/role|certificate/);
  });

  it('refuses callers without a certificate, from another CA, without a role or with the wrong role', async () => {
    const r = await refusals(pki, adm.url, def, 'Acquire', {}, 'node');
    expect(r.noCert.code).toBe('UNAVAILABLE');
    expect(r.otherCa.code).toBe('UNAVAILABLE');
    expect(r.plaintext.code).toBe('UNAVAILABLE');
    expect(r.noRole).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/carries no role/) });
    expect(r.wrongRole).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'wrong role "node" (CN=test-node) for llmgw.admission.v1.Admission/Acquire; it needs role router',
    });
    // Operators may read Status, not take leases.
    expect((await rawCall(adm.url, pki.clientTls('operator'), def, 'Status', {})).code).toBe('OK');
    expect((await rawCall(adm.url, pki.clientTls('operator'), def, 'Acquire', {})).code).toBe('PERMISSION_DENIED');
  });

  it('serves gRPC health (it served none before) to any certificate of its CA', async () => {
    expect(await rawCall(adm.url, pki.clientTls('node'), HEALTH_SERVICE, 'Check', { service: 'llmgw.admission.v1.Admission' })).toMatchObject({
      code: 'OK',
      response: { status: 'SERVING' },
    });
  });
});
