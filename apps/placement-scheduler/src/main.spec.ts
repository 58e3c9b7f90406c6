import { buildCommand, main } from './main';

describe('llmgw placement-scheduler', () => {
  it('has useful help', () => {
    const help = buildCommand().helpInformation();
    expect(help).toContain('Usage: placement-scheduler');
    expect(help).toContain('--config <file>');
  });

  it('refuses to pretend it runs', async () => {
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await expect(main([])).resolves.toBe(3);
    expect(String(write.mock.calls[0][0])).toContain('not implemented');
    write.mockRestore();
  });
  it('--help names the gRPC services it will implement', async () => {
    let out = '';
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((c) => { out += String(c); return true; });
    await main(['--help']);
    write.mockRestore();
    for (const svc of ['llmgw.control.v1.ControlService', 'llmgw.inventory.v1.InventoryService']) expect(out).toContain(svc);
  });
});
