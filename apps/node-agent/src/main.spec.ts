import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { agentConfigSchema, parseAgentConfig } from './config';
import { buildCommand, main } from './main';

const ROOT = join(__dirname, '../../..');

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: { write: (s: string) => ((out += s), true) } as any, err: { write: (s: string) => ((err += s), true) } as any });
  return { code, out, err };
}

describe('llmgw node-agent', () => {
  it('has run (default), discover and engine-check, each with --help', () => {
    const cmd = buildCommand();
    expect(cmd.commands.map((c) => c.name())).toEqual(['run', 'discover', 'engine-check']);
    expect(cmd.helpInformation()).toContain('llmgw.agent.v1.AgentService');
  });

  it('discover --json says plainly when there is no GPU and still reports CPU, memory and disk', async () => {
    const r = await run('discover', '--json', '--nvidia-smi', '/nonexistent/nvidia-smi', '--work-dir', tmpdir());
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.summary).toMatchObject({
      gpus: 0,
      noGpu: true,
      noGpuReason: 'no GPU: /nonexistent/nvidia-smi not found (no NVIDIA driver on this machine)',
      simulated: false,
    });
    expect(j.summary.cpuCores).toBeGreaterThan(0);
    expect(j.summary.memoryTotalMib).toBeGreaterThan(0);
    expect(j.summary.diskFreeMib).toBeGreaterThan(0);
    expect(j.node.gpus).toEqual([]);
  });

  it('discover --fake-gpus reports the fake ones; the text form too', async () => {
    const j = JSON.parse((await run('discover', '--json', '--fake-gpus', '8xh100-80g,fabric=ib-a', '--work-dir', tmpdir())).out);
    expect(j.summary).toMatchObject({ gpus: 8, gpuClasses: ['h100-80g'], noGpu: false, simulated: true, fabrics: ['ib-a'] });
    const text = (await run('discover', '--fake-gpus', '2xl40s-45g', '--work-dir', tmpdir())).out;
    expect(text).toMatch(/SIMULATED GPUs/);
    expect(text).toMatch(/GPUs: 2 \(l40s-45g/);
  });

  it('a bad --fake-gpus or config is a usage error (exit 2 for config, 1 for the spec) with the reason', async () => {
    expect(await run('discover', '--fake-gpus', 'lots')).toMatchObject({ code: 1, err: expect.stringMatching(/--fake-gpus: "lots" is not <count>x<class>/) });
    expect(await run('discover', '--node-id', 'Bad Id')).toMatchObject({ code: 2, err: expect.stringMatching(/node_id: must be \[a-z0-9.-\]/) });
    expect(await run('run', '--fake-gpus', '1xh100-80g', '--work-dir', tmpdir())).toMatchObject({ code: 1, err: expect.stringMatching(/server is required/) });
  });

  it('engine-check fails (exit 1) for an engine that is not installed', async () => {
    const r = await run('engine-check', '--json', '--config', join(ROOT, 'deploy/examples/agent.yaml'));
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).engines.map((e: { engine: string; error: string }) => [e.engine, e.error])).toEqual([
      ['vllm', '/opt/venvs/vllm/bin/vllm not found'],
      ['sglang', '/opt/venvs/sglang/bin/python not found'],
    ]);
  });
});

describe('agent.yaml', () => {
  it('the example in deploy/ parses', () => {
    const cfg = parseAgentConfig(parse(readFileSync(join(ROOT, 'deploy/examples/agent.yaml'), 'utf8')));
    expect(cfg).toMatchObject({ node_id: 'gpu-a-01', fabrics: [{ name: 'ib-a' }], engines: { vllm: { launch_mode: 'mp' } }, heartbeat_interval: 5_000 });
    expect(Object.isFrozen(cfg)).toBe(true);
  });

  it('docs/node-agent.md documents every key', () => {
    const doc = readFileSync(join(ROOT, 'docs/node-agent.md'), 'utf8');
    const missing = Object.keys(agentConfigSchema.shape).filter((k) => !doc.includes(`\`${k}\``) && !doc.includes(`\`${k}.`));
    expect(missing).toEqual([]);
  });

  it.each([
    [{ fabric_prefixes: { 'fe80:0000:0000:0000': 'ib-a' } }, /OpenSM's default prefix/],
    [{ port_range: [21000, 20000] }, /port_range must be \[low, high\]/],
    [{ engines: { vllm: { launch_mode: 'slurm' } } }, /engines\.vllm\.launch_mode/],
    [{ bogus: 1 }, /Unrecognized key/],
    [{ heartbeat_interval: 'soon' }, /invalid duration/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseAgentConfig(raw)).toThrow(message);
  });
});
