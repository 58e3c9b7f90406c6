import { buildCommand, main } from './main';

describe('llmgw placement-scheduler', () => {
  it('has a usage line naming the services it serves and calls', () => {
    const help = buildCommand().helpInformation();
    expect(help).toContain('Usage: placement-scheduler');
    expect(help).toContain('llmgw.control.v1.ControlService');
    expect(help).toContain('llmgw.inventory.v1.InventoryService');
  });

  it('refuses to start without a catalog (exit 2, naming the key)', async () => {
    let err = '';
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((c) => {
      err += String(c);
      return true;
    });
    await expect(main(['--port', '0', '--admin-port', '0'])).resolves.toBe(2);
    write.mockRestore();
    expect(err).toContain('catalog');
  });

  it('refuses an invalid catalog with the file, model and field (exit 2)', async () => {
    let err = '';
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((c) => {
      err += String(c);
      return true;
    });
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'llmgw-ps-'));
    const file = join(dir, 'catalog.yaml');
    writeFileSync(file, 'models:\n  - name: llama\n    source: /m\n    profiles: [{ name: p, gpu_class: h100-80g, engine: tgi }]\n');
    await expect(main(['--catalog', file, '--port', '0', '--admin-port', '0'])).resolves.toBe(2);
    write.mockRestore();
    expect(err).toContain(`${file}:`);
    expect(err).toContain('models[0] (llama).profiles[0] (p).engine');
  });
});
