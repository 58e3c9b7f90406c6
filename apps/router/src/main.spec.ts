import { main } from './main';

describe('router CLI', () => {
  it('prints help and exits 0', async () => {
    const out: string[] = [];
    const w = jest.spyOn(process.stdout, 'write').mockImplementation((s: any) => (out.push(String(s)), true));
    try {
      expect(await main(['--help'])).toBe(0);
    } finally {
      w.mockRestore();
    }
    expect(out.join('')).toContain('--endpoint <spec>');
  });

  it.each([
    ['a bad --endpoint', ['--endpoint', 'nope']],
    ['no endpoints at all', []],
    ['a bad --model-alias', ['--endpoint', 'a=http://h:1=m', '--model-alias', 'x']],
    ['a missing config file', ['--config', '/nonexistent/router.yaml']],
  ])('exits 2 on %s', async (_what, argv) => {
    const err: string[] = [];
    const w = jest.spyOn(process.stderr, 'write').mockImplementation((s: any) => (err.push(String(s)), true));
    try {
      expect(await main(argv)).toBe(2);
    } finally {
      w.mockRestore();
    }
    expect(err.join('')).toMatch(/llmgw router: /);
  });
});
