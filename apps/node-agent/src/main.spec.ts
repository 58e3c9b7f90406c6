import { buildCommand, main } from './main';

describe('llmgw node-agent', () => {
  it('has a usage line', () => {
    expect(buildCommand().helpInformation()).toContain('Usage: node-agent');
  });

  it('exits 3 (not implemented) instead of pretending to run', async () => {
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await expect(main([])).resolves.toBe(3);
    write.mockRestore();
  });

  it.each(['llmgw.agent.v1.AgentService'])('--help mentions %s', async (svc) => {
    let out = '';
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((c) => {
      out += String(c);
      return true;
    });
    await main(['--help']);
    write.mockRestore();
    expect(out).toContain(svc);
  });
});
