import { buildCommand, main } from './main';

describe('llmgw node-agent', () => {
  it('has useful help', () => {
    const help = buildCommand().helpInformation();
    expect(help).toContain('Usage: node-agent');
    expect(help).toContain('--config <file>');
  });

  it('refuses to pretend it runs', async () => {
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await expect(main([])).resolves.toBe(3);
    expect(String(write.mock.calls[0][0])).toContain('not implemented');
    write.mockRestore();
  });
});
