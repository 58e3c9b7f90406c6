import * as grpc from '@grpc/grpc-js';
import { authorizeCall, ipFromTlsName, targetHost, tlsNameForIp, clientChannelOptions, type AuthorizationTable } from './index';

const table: AuthorizationTable = {
  'llmgw.accounting.v1.TenancyAdmin': ['operator', 'portal'],
  'llmgw.admission.v1.Admission': ['router'],
  'llmgw.admission.v1.Admission/Status': ['router', 'operator'],
};

describe('authorizeCall', () => {
  it('lets a listed role through, per service and per method', () => {
    expect(authorizeCall(table, '/llmgw.accounting.v1.TenancyAdmin/CreateOrg', { cn: 'alice', ou: 'operator' })).toBeUndefined();
    expect(authorizeCall(table, '/llmgw.admission.v1.Admission/Status', { cn: 'ops', ou: 'operator' })).toBeUndefined();
  });

  it('refuses a wrong role, naming the role, the method and who may call it', () => {
    expect(authorizeCall(table, '/llmgw.accounting.v1.TenancyAdmin/CreateOrg', { cn: 'gpu-1', ou: 'node' })).toEqual({
      code: grpc.status.PERMISSION_DENIED,
      details: 'wrong role "node" (CN=gpu-1) for llmgw.accounting.v1.TenancyAdmin/CreateOrg; it needs role operator or portal',
    });
    // The method rule wins over its service's: operators read Status, but do not Acquire.
    expect(authorizeCall(table, '/llmgw.admission.v1.Admission/Acquire', { cn: 'ops', ou: 'operator' })?.code).toBe(grpc.status.PERMISSION_DENIED);
  });

  it('refuses a certificate without a role, and a call without a certificate', () => {
    expect(authorizeCall(table, '/llmgw.admission.v1.Admission/Acquire', { cn: 'old' })).toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
      details: expect.stringContaining('carries no role (subject OU)'),
    });
    expect(authorizeCall(table, '/llmgw.admission.v1.Admission/Acquire', undefined)).toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });

  it('fails closed for a service the table does not name, and opens health to any certificate', () => {
    expect(authorizeCall(table, '/llmgw.control.v1.ControlService/ListNodes', { cn: 'x', ou: 'operator' })).toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
      details: 'llmgw.control.v1.ControlService/ListNodes is not open to any role on this server',
    });
    expect(authorizeCall(table, '/grpc.health.v1.Health/Check', { cn: 'x' })).toBeUndefined();
    expect(authorizeCall({ ...table, 'grpc.health.v1.Health': ['operator'] }, '/grpc.health.v1.Health/Check', { cn: 'x', ou: 'node' })?.code).toBe(
      grpc.status.PERMISSION_DENIED,
    );
  });
});

describe('TLS names for IPs', () => {
  it.each(['127.0.0.1', '10.20.30.40', '::1', 'fe80::1234:5678:9abc:def0', '2001:db8:85a3:0:0:8a2e:370:7334'])(
    'round-trips %s through a DNS-shaped name',
    (ip) => {
      const name = tlsNameForIp(ip);
      expect(name).toMatch(/^[a-z0-9.-]+$/);
      for (const label of name.split('.')) expect(label.length).toBeLessThanOrEqual(63);
      expect(ipFromTlsName(name)).toBe(ip);
    },
  );

  it('leaves other names alone', () => {
    expect(ipFromTlsName('inventory.internal')).toBeUndefined();
    expect(ipFromTlsName(`ip-${Buffer.from('not-an-ip').toString('hex')}.llmgw.invalid`)).toBeUndefined();
  });

  it.each([
    ['127.0.0.1:7070', '127.0.0.1'],
    ['[::1]:7070', '::1'],
    ['dns:///inventory.internal:7074', 'inventory.internal'],
    ['http://10.0.0.2:7072', '10.0.0.2'],
    ['localhost', 'localhost'],
  ])('finds the host of %s', (target, host) => expect(targetHost(target)).toBe(host));

  it('overrides the server name only for IPs, or a configured server_name', () => {
    const tls = { ca: 'x' };
    expect(clientChannelOptions({ tls, address: 'inventory.internal:7074' })).toEqual({});
    expect(clientChannelOptions({ tls, address: '10.0.0.2:7074' })).toEqual({ 'grpc.ssl_target_name_override': tlsNameForIp('10.0.0.2') });
    expect(clientChannelOptions({ tls: { ...tls, serverName: 'inv.internal' }, address: '10.0.0.2:7074' })).toEqual({
      'grpc.ssl_target_name_override': 'inv.internal',
      'grpc.default_authority': 'inv.internal',
    });
    expect(clientChannelOptions({ address: '10.0.0.2:7074' })).toEqual({});
  });
});
