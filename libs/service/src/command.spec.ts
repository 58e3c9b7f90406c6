import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { listenAddress, logLevel } from '@llmgw/config';
import { defineService } from './host';
import { runCommandLine } from './command';

const schema = z
  .object({ admin_listen: listenAddress().default('127.0.0.1:0'), log_level: logLevel(), name: z.string().default('x'), size: z.number().int().default(1) })
  .strict();

function service(started: Array<{ name: string; size: number }>) {
  return defineService({
    name: 'demo',
    schema,
    settings: (c) => c,
    async start(ctx) {
      started.push({ name: ctx.config.name, size: ctx.config.size });
      throw new Error('stop here: the test only needs to see the config the service got');
    },
  });
}

const command = () =>
  new Command('llmgw demo').option('-c, --config <file>', 'config file').option('--name <name>', 'a name').option('--size <n>', 'a size').exitOverride();

interface Flags {
  config?: string;
  name?: string;
  size?: string;
}

function apply(o: Flags, input: Record<string, any>) {
  if (o.name) input.name = o.name;
  if (o.size !== undefined) {
    if (!/^\d+$/.test(o.size)) throw new Error(`--size must be a whole number, got "${o.size}"`);
    input.size = Number(o.size);
  }
}

/** Runs the command line with stdout and stderr captured. */
async function run(argv: string[], extra: { usageStatus?: number; check?: (c: z.output<typeof schema>) => string | undefined } = {}) {
  const out: string[] = [];
  const started: Array<{ name: string; size: number }> = [];
  const so = jest.spyOn(process.stdout, 'write').mockImplementation((s: any) => (out.push(String(s)), true));
  const se = jest.spyOn(process.stderr, 'write').mockImplementation((s: any) => (out.push(String(s)), true));
  try {
    const status = await runCommandLine(argv, service(started), { command: command(), apply, ...extra }).catch((e: Error) => e.message);
    return { status, out: out.join(''), started };
  } finally {
    so.mockRestore();
    se.mockRestore();
  }
}

describe('runCommandLine', () => {
  it('lays the flags over the config file and hands the service one parsed config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmgw-cmd-'));
    const file = join(dir, 'demo.yaml');
    writeFileSync(file, 'name: from-file\nsize: 3\n');
    const r = await run(['--config', file, '--size', '5']);
    expect(r.started).toEqual([{ name: 'from-file', size: 5 }]);
    expect(r.status).toMatch(/stop here/);
  });

  it('answers --help with 0 and starts nothing', async () => {
    const r = await run(['--help']);
    expect(r.status).toBe(0);
    expect(r.out).toContain('--size <n>');
    expect(r.started).toEqual([]);
  });

  it("returns commander's status for a usage error, or the role's own", async () => {
    expect((await run(['--nope'])).status).toBe(1);
    expect((await run(['--nope'], { usageStatus: 2 })).status).toBe(2);
  });

  it('returns 2 with "llmgw <role>: ..." on stderr for a bad flag, a bad config and a failed check', async () => {
    const badFlag = await run(['--size', 'many']);
    expect(badFlag).toMatchObject({ status: 2, started: [] });
    expect(badFlag.out).toBe('llmgw demo: --size must be a whole number, got "many"\n');

    const dir = mkdtempSync(join(tmpdir(), 'llmgw-cmd-'));
    const file = join(dir, 'demo.yaml');
    writeFileSync(file, 'log_level: loud\n');
    const badConfig = await run(['--config', file]);
    expect(badConfig).toMatchObject({ status: 2, started: [] });
    expect(badConfig.out).toMatch(new RegExp(`^llmgw demo: invalid configuration in ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:[\\s\\S]*log_level`));

    const failedCheck = await run(['--name', 'y'], { check: (c) => (c.name === 'y' ? 'y is not a name here' : undefined) });
    expect(failedCheck).toMatchObject({ status: 2, out: 'llmgw demo: y is not a name here\n', started: [] });
  });
});
