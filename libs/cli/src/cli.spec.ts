import { EXIT_NOT_IMPLEMENTED, overrideListen, parseListen, reachableHost, skeletonRole, untilSignal } from './index';

describe('parseListen', () => {
  it.each([
    ['127.0.0.1:8080', { host: '127.0.0.1', port: 8080 }],
    [':9090', { host: '0.0.0.0', port: 9090 }],
    ['7070', { host: '0.0.0.0', port: 7070 }],
    ['[::1]:0', { host: '::1', port: 0 }],
  ])('%s', (s, want) => expect(parseListen(s)).toEqual(want));

  it.each(['localhost', 'a:b', '1:99999', ''])('rejects %p', (s) => expect(() => parseListen(s)).toThrow());

  it.each([['0.0.0.0', '127.0.0.1'], ['::', '127.0.0.1'], ['::1', '[::1]'], ['10.0.0.5', '10.0.0.5']])('reachableHost(%s) = %s', (h, want) => {
    expect(reachableHost(h)).toBe(want);
  });
});

describe('skeletonRole', () => {
  const role = skeletonRole('inventory', 'Fleet-facing port.', [
    { service: 'llmgw.agent.v1.AgentService', where: 'proto/llmgw/agent/v1/agent.proto' },
    { service: 'llmgw.inventory.v1.InventoryService', where: 'proto/llmgw/inventory/v1/inventory.proto' },
  ]);

  function capture(stream: NodeJS.WriteStream) {
    let out = '';
    const spy = jest.spyOn(stream, 'write').mockImplementation((c) => {
      out += String(c);
      return true;
    });
    return { text: () => out, restore: () => spy.mockRestore() };
  }

  it('--help names every service it will implement and exits 0', async () => {
    const out = capture(process.stdout);
    const code = await role.main(['--help']);
    out.restore();
    expect(code).toBe(0);
    expect(out.text()).toContain('Usage: inventory');
    expect(out.text()).toContain('llmgw.agent.v1.AgentService');
    expect(out.text()).toContain('llmgw.inventory.v1.InventoryService');
  });

  it('refuses to pretend it runs', async () => {
    const err = capture(process.stderr);
    const code = await role.main([]);
    err.restore();
    expect(code).toBe(EXIT_NOT_IMPLEMENTED);
    expect(err.text()).toContain('not implemented');
  });

  it('rejects unknown flags with a usage error', async () => {
    const err = capture(process.stderr);
    const code = await role.main(['--bogus']);
    err.restore();
    expect(code).not.toBe(0);
    expect(code).not.toBe(EXIT_NOT_IMPLEMENTED);
  });
});

describe('overrideListen', () => {
  it.each([
    [undefined, '127.0.0.1:8080', undefined, '0', '127.0.0.1:0'],
    ['10.0.0.1:9000', '127.0.0.1:8080', '0.0.0.0', undefined, '0.0.0.0:9000'],
    [':7070', '127.0.0.1:7070', undefined, 7071, '0.0.0.0:7071'],
  ])('%p over %p with host %p port %p → %p', (configured, fallback, host, port, want) => {
    expect(overrideListen(configured, fallback, host, port)).toBe(want);
  });
});

describe('untilSignal', () => {
  it('closes on SIGTERM and resolves after close finishes', async () => {
    let closed = false;
    const done = untilSignal(async () => {
      await new Promise((r) => setTimeout(r, 10));
      closed = true;
    });
    process.emit('SIGTERM');
    await done;
    expect(closed).toBe(true);
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });
});
