import { buildCommand, main } from './main';

describe('llmgw inventory', () => {
  it('has a usage line', () => {
    expect(buildCommand().helpInformation()).toContain('Usage: inventory');
  });

  it.each(['llmgw.agent.v1.AgentService', 'llmgw.inventory.v1.InventoryService', 'llmgw.control.v1.ControlService'])('--help mentions %s', async (svc) => {
    let out = '';
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((c) => {
      out += String(c);
      return true;
    });
    await main(['--help']);
    write.mockRestore();
    expect(out.replace(/\s+/g, ' ')).toContain(svc);
  });

  it('refuses to start a fleet port without mTLS unless told it is a lab (exit 2, the reason on stderr)', async () => {
    let err = '';
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((c) => {
      err += String(c);
      return true;
    });
    await expect(main(['--port', '0'])).resolves.toBe(2);
    write.mockRestore();
    expect(err).toContain('refusing plaintext gRPC on 0.0.0.0:7443: agent_tls is not set');
  });
});
