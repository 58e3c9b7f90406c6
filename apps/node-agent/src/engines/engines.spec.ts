import type { agentV1 } from '@llmgw/contracts';
import fc from 'fast-check';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlamaCppEngine, SglangEngine, SimEngineAdapter, VllmEngine, findRepoRoot } from './adapters';
import { checkEngine, missingFlags, resolveBinary } from './check';
import { baseEnv, type NodeContext } from './engine';

const NODE: NodeContext = {
  mgmtAddr: '10.0.0.5',
  mgmtInterface: 'eth0',
  gpuIndices: [0, 1, 2, 3, 4, 5, 6, 7],
  fabrics: [
    { fabric: 'ib-a', hcas: ['mlx5_0', 'mlx5_1'] },
    { fabric: 'ib-b', hcas: ['mlx5_10', 'mlx5_11'] },
  ],
};

function spec(over: Partial<agentV1.ShardSpec__Output> = {}): agentV1.ShardSpec__Output {
  return {
    shardId: 'rep1-r0',
    replicaId: 'rep1',
    model: 'llama-70b',
    profile: 'tp4',
    engine: 'vllm',
    rank: 0,
    nnodes: 1,
    leaderAddr: '',
    leaderPort: 0,
    gpuIndices: [0, 1, 2, 3],
    hcas: [],
    fabric: '',
    httpPort: 20001,
    modelPath: '/models/llama-70b',
    args: [],
    env: {},
    tensorParallel: 4,
    pipelineParallel: 1,
    startupTimeoutMs: 0,
    launchMode: '',
    servedModelName: '',
    maxNumSeqs: 0,
    schedulingPolicy: '',
    kvEventsPort: 0,
    kvReplayPort: 0,
    apiKey: '',
    weights: null,
    adapters: [],
    maxLoras: 0,
    ...over,
  };
}

const multi = (rank: number, over: Partial<agentV1.ShardSpec__Output> = {}) =>
  spec({
    shardId: `rep1-r${rank}`,
    rank,
    nnodes: 2,
    leaderAddr: '10.0.0.5',
    leaderPort: 20500,
    fabric: 'ib-a',
    hcas: ['mlx5_0', 'mlx5_1'],
    tensorParallel: 4,
    pipelineParallel: 2,
    ...over,
  });

describe('adapters: argv and environment', () => {
  const vllm = new VllmEngine({ bin: '/opt/venvs/vllm/bin/vllm', launch_mode: 'mp' });
  const vllmRay = new VllmEngine({ bin: '/opt/venvs/vllm/bin/vllm', launch_mode: 'ray' });
  const sglang = new SglangEngine({ python: '/opt/venvs/sglang/bin/python' });
  const llama = new LlamaCppEngine({ bin: '/usr/local/bin/llama-server' });
  const SERVE = ['/opt/venvs/vllm/bin/vllm', 'serve', '/models/llama-70b', '--host', '10.0.0.5', '--port', '20001', '--served-model-name', 'llama-70b'];

  it.each([
    [
      'vllm single node',
      vllm,
      spec({ args: ['--max-model-len', '8192'] }),
      [...SERVE, '--tensor-parallel-size', '4', '--pipeline-parallel-size', '1', '--max-model-len', '8192'],
      { CUDA_VISIBLE_DEVICES: '0,1,2,3', NCCL_IB_DISABLE: '1', NCCL_SOCKET_IFNAME: 'eth0', GLOO_SOCKET_IFNAME: 'eth0' },
    ],
    [
      'vllm mp leader',
      vllm,
      multi(0),
      [
        ...SERVE,
        '--tensor-parallel-size',
        '4',
        '--pipeline-parallel-size',
        '2',
        '--nnodes',
        '2',
        '--node-rank',
        '0',
        '--master-addr',
        '10.0.0.5',
        '--master-port',
        '20500',
      ],
      { CUDA_VISIBLE_DEVICES: '0,1,2,3', NCCL_IB_HCA: '=mlx5_0,mlx5_1', VLLM_HOST_IP: '10.0.0.5', NCCL_SOCKET_IFNAME: 'eth0', GLOO_SOCKET_IFNAME: 'eth0' },
    ],
    [
      'vllm mp worker (headless)',
      vllm,
      multi(1, { shardId: 'rep1-r1' }),
      [
        ...SERVE,
        '--tensor-parallel-size',
        '4',
        '--pipeline-parallel-size',
        '2',
        '--nnodes',
        '2',
        '--node-rank',
        '1',
        '--master-addr',
        '10.0.0.5',
        '--master-port',
        '20500',
        '--headless',
      ],
      { NCCL_IB_HCA: '=mlx5_0,mlx5_1' },
    ],
    [
      'vllm ray worker',
      vllmRay,
      multi(1),
      ['/opt/venvs/vllm/bin/ray', 'start', '--block', '--address=10.0.0.5:20500', '--node-ip-address=10.0.0.5', '--num-gpus=4'],
      { NCCL_IB_HCA: '=mlx5_0,mlx5_1', VLLM_HOST_IP: '10.0.0.5' },
    ],
    [
      'sglang single node',
      sglang,
      spec({ engine: 'sglang', servedModelName: 'llama' }),
      [
        '/opt/venvs/sglang/bin/python',
        '-m',
        'sglang.launch_server',
        '--model-path',
        '/models/llama-70b',
        '--host',
        '10.0.0.5',
        '--port',
        '20001',
        '--served-model-name',
        'llama',
        '--tp-size',
        '4',
        '--pp-size',
        '1',
        '--enable-metrics',
      ],
      { CUDA_VISIBLE_DEVICES: '0,1,2,3', NCCL_IB_DISABLE: '1' },
    ],
    [
      'sglang multi-node worker',
      sglang,
      multi(1, { engine: 'sglang', gpuIndices: [4, 5, 6, 7] }),
      [
        '/opt/venvs/sglang/bin/python',
        '-m',
        'sglang.launch_server',
        '--model-path',
        '/models/llama-70b',
        '--host',
        '10.0.0.5',
        '--port',
        '20001',
        '--served-model-name',
        'llama-70b',
        '--tp-size',
        '4',
        '--pp-size',
        '2',
        '--enable-metrics',
        '--nnodes',
        '2',
        '--node-rank',
        '1',
        '--dist-init-addr',
        '10.0.0.5:20500',
      ],
      { CUDA_VISIBLE_DEVICES: '4,5,6,7', NCCL_IB_HCA: '=mlx5_0,mlx5_1' },
    ],
    [
      'llama.cpp on GPU',
      llama,
      spec({ engine: 'llamacpp', gpuIndices: [2], modelPath: '/models/q.gguf', tensorParallel: 1 }),
      [
        '/usr/local/bin/llama-server',
        '--model',
        '/models/q.gguf',
        '--host',
        '10.0.0.5',
        '--port',
        '20001',
        '--alias',
        'llama-70b',
        '--metrics',
        '--n-gpu-layers',
        '999',
      ],
      { CUDA_VISIBLE_DEVICES: '2', NCCL_IB_DISABLE: '1' },
    ],
    [
      'llama.cpp on CPU (a CPU profile hides every GPU)',
      llama,
      spec({ engine: 'llamacpp', gpuIndices: [], modelPath: '/models/q.gguf', args: ['--threads', '8'] }),
      [
        '/usr/local/bin/llama-server',
        '--model',
        '/models/q.gguf',
        '--host',
        '10.0.0.5',
        '--port',
        '20001',
        '--alias',
        'llama-70b',
        '--metrics',
        '--n-gpu-layers',
        '0',
        '--threads',
        '8',
      ],
      { CUDA_VISIBLE_DEVICES: '' },
    ],
  ])('%s', (_what, engine, s, argv, env) => {
    const cmd = engine.build(s, NODE);
    expect(cmd.argv).toEqual(argv);
    expect(cmd.env).toMatchObject(env);
    expect(engine.validate(s, NODE)).toEqual([]);
    if (s.rank === 0)
      expect(cmd).toMatchObject({ endpoint: 'http://10.0.0.5:20001', healthUrl: 'http://10.0.0.5:20001/health', modelsUrl: 'http://10.0.0.5:20001/v1/models' });
    else expect(cmd.healthUrl).toBeUndefined();
  });

  it('vllm ray leader: the head and the server in one process group, ray stop afterwards', () => {
    const cmd = vllmRay.build(multi(0), NODE);
    expect(cmd.argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(cmd.argv[2]).toBe(
      "'/opt/venvs/vllm/bin/ray' 'start' '--head' '--port=20500' '--node-ip-address=10.0.0.5' '--num-gpus=4' && exec '/opt/venvs/vllm/bin/vllm' 'serve' '/models/llama-70b' " +
        "'--host' '10.0.0.5' '--port' '20001' '--served-model-name' 'llama-70b' '--tensor-parallel-size' '4' '--pipeline-parallel-size' '2' '--distributed-executor-backend' 'ray'",
    );
    expect(cmd.cleanup).toEqual(['/opt/venvs/vllm/bin/ray', 'stop', '--force']);
  });

  it('a shard-level launch_mode overrides the configured one', () => {
    expect(vllm.build(multi(1, { launchMode: 'ray' }), NODE).argv[1]).toBe('start');
  });

  it('the profile env applies but cannot override what the agent owns', () => {
    const s = spec({ env: { NCCL_DEBUG: 'INFO', NCCL_CROSS_NIC: '1' } });
    expect(baseEnv(s, NODE)).toMatchObject({ NCCL_DEBUG: 'INFO', NCCL_CROSS_NIC: '1' });
    const bad = spec({ env: { NCCL_IB_HCA: 'mlx5_10', CUDA_VISIBLE_DEVICES: '7' } });
    expect(baseEnv(bad, NODE)).toMatchObject({ CUDA_VISIBLE_DEVICES: '0,1,2,3', NCCL_IB_DISABLE: '1' });
    expect(baseEnv(bad, NODE).NCCL_IB_HCA).toBeUndefined();
    expect(vllm.validate(bad, NODE)).toEqual([
      'env CUDA_VISIBLE_DEVICES is set by the agent from the spec and cannot be overridden',
      'env NCCL_IB_HCA is set by the agent from the spec and cannot be overridden',
    ]);
  });

  it.each([
    ['GPUs the node lacks', spec({ gpuIndices: [6, 7, 8, 9] }), 'GPUs 8, 9 do not exist on this node (it has 0, 1, 2, 3, 4, 5, 6, 7)'],
    ['an HCA of another fabric', multi(0, { hcas: ['mlx5_0', 'mlx5_10'] }), 'HCAs mlx5_10 are not on fabric ib-a'],
    ['a fabric the node is not on', multi(0, { fabric: 'ib-c' }), 'this node is not attached to fabric ib-c'],
    ['a multi-node shard without leader', multi(1, { leaderAddr: '' }), 'leader_addr is required for a multi-node shard'],
    ['rank ≥ nnodes', multi(2), 'rank 2 is not below nnodes 2'],
    ['rank 0 without a port', spec({ httpPort: 0 }), 'http_port is required for rank 0'],
    ['a bad launch mode', spec({ launchMode: 'slurm' }), 'launch_mode slurm is neither mp nor ray'],
    ['no GPU for vllm', spec({ gpuIndices: [] }), 'vllm needs at least one GPU'],
  ])('vllm refuses %s', (_what, s, problem) => {
    expect(vllm.validate(s, NODE)).toContain(problem);
  });

  it('llama.cpp refuses multi-node', () => {
    expect(llama.validate(multi(0), NODE)).toContain('llama.cpp shards are single-node');
  });

  it('sim runs a multi-node replica: a sim-engine per rank, rank 0 serves, a worker is probed on its own port but publishes nothing', () => {
    const sim = new SimEngineAdapter();
    const node = { ...NODE, bindHost: '127.0.0.1', mgmtAddr: '127.0.0.1' };
    const leader = multi(0, { engine: 'sim', servedModelName: 'big', httpPort: 20001 });
    const worker = multi(1, { engine: 'sim', servedModelName: 'big', httpPort: 20003 });
    expect(sim.validate(leader, NODE)).toEqual([]);
    expect(sim.validate(worker, NODE)).toEqual([]);
    expect(sim.validate({ ...worker, httpPort: 0 }, NODE)).toContain('http_port is required for every sim shard (workers run a sim-engine too)');
    const l = sim.build(leader, node);
    expect(l).toMatchObject({ endpoint: 'http://127.0.0.1:20001', healthUrl: 'http://127.0.0.1:20001/health', metricsUrl: 'http://127.0.0.1:20001/metrics' });
    expect(l.env.NCCL_IB_HCA).toBe('=mlx5_0,mlx5_1');
    const w = sim.build(worker, node);
    expect(w.argv.slice(2, 7)).toEqual(['sim-engine', '--host', '127.0.0.1', '--port', '20003']);
    expect(w).toMatchObject({ healthUrl: 'http://127.0.0.1:20003/health', modelsUrl: 'http://127.0.0.1:20003/v1/models', servedModelName: 'big' });
    expect(w.endpoint).toBeUndefined();
    expect(w.metricsUrl).toBeUndefined();
  });

  it("sim launches our sim-engine through the repository's bin/llmgw.cjs", () => {
    const root = findRepoRoot()!;
    const cmd = new SimEngineAdapter().build(spec({ engine: 'sim', gpuIndices: [], servedModelName: 'm1', args: ['--decode-tps', '0'] }), {
      ...NODE,
      bindHost: '127.0.0.1',
      mgmtAddr: '127.0.0.1',
    });
    expect(cmd.argv).toEqual([
      process.execPath,
      join(root, 'bin', 'llmgw.cjs'),
      'sim-engine',
      '--host',
      '127.0.0.1',
      '--port',
      '20001',
      '--model',
      'm1',
      '--decode-tps',
      '0',
    ]);
    expect(cmd.endpoint).toBe('http://127.0.0.1:20001');
  });
});

describe('NCCL_IB_HCA never names an HCA of another fabric (property)', () => {
  // Nodes with 1–3 fabrics whose HCA names overlap as prefixes (mlx5_1 vs mlx5_10),
  // specs naming any HCAs at all, of any fabric or none.
  const arb = fc
    .record({
      fabrics: fc.uniqueArray(fc.uniqueArray(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
      pick: fc.nat(),
      hcas: fc.array(fc.integer({ min: 0, max: 25 }), { maxLength: 6 }),
      nnodes: fc.integer({ min: 1, max: 4 }),
      envHca: fc.option(fc.constantFrom('mlx5_1', 'mlx5_19', '^mlx5_0'), { nil: undefined }),
    })
    .map(({ fabrics, pick, hcas, nnodes, envHca }) => {
      // Each HCA number belongs to the first fabric listing it: fabrics are disjoint, as on real nodes.
      const seen = new Set<number>();
      const fabs = fabrics
        .map((nums, i) => ({ fabric: `ib-${i}`, hcas: nums.filter((n) => !seen.has(n) && (seen.add(n), true)).map((n) => `mlx5_${n}`) }))
        .filter((f) => f.hcas.length);
      return { fabs, chosen: fabs.length ? fabs[pick % fabs.length].fabric : '', hcas: hcas.map((n) => `mlx5_${n}`), nnodes, envHca };
    });

  it('holds for every adapter', () => {
    const engines = [new VllmEngine(), new VllmEngine({ bin: 'vllm', launch_mode: 'ray' }), new SglangEngine(), new LlamaCppEngine(), new SimEngineAdapter()];
    fc.assert(
      fc.property(arb, fc.constantFrom(...engines), fc.nat(), ({ fabs, chosen, hcas, nnodes, envHca }, engine, rank) => {
        const node: NodeContext = { ...NODE, fabrics: fabs };
        const s = multi(rank % nnodes, { nnodes, fabric: chosen, hcas, env: envHca ? { NCCL_IB_HCA: envHca } : {} });
        const env = engine.build(s, node).env;
        const own = new Set(fabs.find((f) => f.fabric === chosen)?.hcas ?? []);
        const others = new Set(fabs.filter((f) => f.fabric !== chosen).flatMap((f) => f.hcas));
        if (env.NCCL_IB_HCA === undefined) return env.NCCL_IB_DISABLE === '1';
        // Exact-match syntax, so NCCL's prefix matching cannot widen the list.
        if (!env.NCCL_IB_HCA.startsWith('=')) return false;
        const named = env.NCCL_IB_HCA.slice(1).split(',');
        return named.length > 0 && named.every((h) => own.has(h) && !others.has(h)) && nnodes > 1;
      }),
      { numRuns: 500 },
    );
  });
});

describe('adapters: the endpoint contract and the engine secret', () => {
  const vllm = new VllmEngine({ bin: 'vllm', launch_mode: 'mp' });
  const contract = { maxNumSeqs: 64, schedulingPolicy: 'priority', kvEventsPort: 20002, kvReplayPort: 20003, apiKey: 's3cret-key' };
  const after = (argv: string[], flag: string) => argv[argv.indexOf(flag) + 1];

  it('vLLM: --max-num-seqs, --scheduling-policy, --kv-events-config on the bind address; the secret in VLLM_API_KEY, not argv', () => {
    const cmd = vllm.build(spec(contract), NODE);
    expect(after(cmd.argv, '--host')).toBe('10.0.0.5');
    expect(after(cmd.argv, '--max-num-seqs')).toBe('64');
    expect(after(cmd.argv, '--scheduling-policy')).toBe('priority');
    expect(JSON.parse(after(cmd.argv, '--kv-events-config'))).toEqual({
      enable_kv_cache_events: true,
      publisher: 'zmq',
      endpoint: 'tcp://10.0.0.5:20002',
      replay_endpoint: 'tcp://10.0.0.5:20003',
      topic: '',
    });
    expect(cmd.env.VLLM_API_KEY).toBe('s3cret-key');
    expect(cmd.apiKey).toBe('s3cret-key');
    expect(cmd.argv.join(' ')).not.toContain('s3cret-key');
  });

  it('vLLM multi-node: every rank gets the slots and policy, only a rank with a KV port publishes', () => {
    const worker = vllm.build(multi(1, { maxNumSeqs: 64, schedulingPolicy: 'priority' }), NODE);
    expect(after(worker.argv, '--max-num-seqs')).toBe('64');
    expect(worker.argv).not.toContain('--kv-events-config');
  });

  it('SGLang: --max-running-requests, priority scheduling with low values first, --kv-events-config (publisher zmq), --api-key (SGLang has no env for it)', () => {
    const cmd = new SglangEngine({ python: 'python3' }).build(spec({ engine: 'sglang', ...contract }), NODE);
    expect(after(cmd.argv, '--max-running-requests')).toBe('64');
    expect(cmd.argv).toEqual(expect.arrayContaining(['--enable-priority-scheduling', '--schedule-low-priority-values-first']));
    expect(JSON.parse(after(cmd.argv, '--kv-events-config'))).toEqual({
      publisher: 'zmq',
      endpoint: 'tcp://10.0.0.5:20002',
      replay_endpoint: 'tcp://10.0.0.5:20003',
      topic: '',
    });
    expect(after(cmd.argv, '--api-key')).toBe('s3cret-key');
    expect(cmd.apiKey).toBe('s3cret-key');
  });

  it('llama.cpp: --parallel from the slots, the secret in LLAMA_API_KEY', () => {
    const cmd = new LlamaCppEngine({ bin: 'llama-server' }).build(spec({ engine: 'llamacpp', maxNumSeqs: 4, apiKey: 's3cret-key' }), NODE);
    expect(after(cmd.argv, '--parallel')).toBe('4');
    expect(cmd.env.LLAMA_API_KEY).toBe('s3cret-key');
    expect(cmd.argv.join(' ')).not.toContain('s3cret-key');
  });

  it('sim: the same vLLM flags, the secret in VLLM_API_KEY; nothing extra without a contract', () => {
    const sim = new SimEngineAdapter({ node: 'node', llmgw: 'llmgw.cjs' });
    const cmd = sim.build(spec({ engine: 'sim', ...contract }), NODE);
    expect(after(cmd.argv, '--max-num-seqs')).toBe('64');
    expect(after(cmd.argv, '--scheduling-policy')).toBe('priority');
    expect(JSON.parse(after(cmd.argv, '--kv-events-config')).endpoint).toBe('tcp://10.0.0.5:20002');
    expect(cmd.env.VLLM_API_KEY).toBe('s3cret-key');
    const bare = sim.build(spec({ engine: 'sim' }), NODE);
    expect(bare.argv.filter((a) => a.startsWith('--'))).toEqual(['--host', '--port', '--model']);
    expect(bare.env.VLLM_API_KEY).toBeUndefined();
    expect(bare.apiKey).toBeUndefined();
  });

  it('engines bind the management address by default; an explicit bind host wins (every interface: tcp://*)', () => {
    const def = vllm.build(spec(contract), { ...NODE, mgmtAddr: '10.9.9.9' });
    expect(after(def.argv, '--host')).toBe('10.9.9.9');
    const all = vllm.build(spec(contract), { ...NODE, bindHost: '0.0.0.0' });
    expect(after(all.argv, '--host')).toBe('0.0.0.0');
    expect(JSON.parse(after(all.argv, '--kv-events-config')).endpoint).toBe('tcp://*:20002');
    expect(all.endpoint).toBe('http://10.0.0.5:20001');
  });
});

describe('engine-check', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-engine-check-'));
    // A stand-in llama-server whose --help is the documented flag table, one flag removed.
    const table = readFileSync(join(__dirname, '../../../../fixtures/cli_help/llama-server_flags_llama.cpp-README_25d5b0c.tsv'), 'utf8');
    const help = table
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split('\t')[1])
      .join('\n');
    writeFileSync(join(dir, 'help.txt'), help + '\n');
    writeFileSync(
      join(dir, 'help-no-metrics.txt'),
      help
        .split('\n')
        .filter((l) => !l.includes('--metrics'))
        .join('\n') + '\n',
    );
    const script = (helpFile: string) => `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "version: 6520 (25d5b0c5)"; exit 0; fi\ncat ${join(dir, helpFile)}\n`;
    writeFileSync(join(dir, 'llama-server'), script('help.txt'));
    writeFileSync(join(dir, 'old-llama-server'), script('help-no-metrics.txt'));
    chmodSync(join(dir, 'llama-server'), 0o755);
    chmodSync(join(dir, 'old-llama-server'), 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('every flag the llama.cpp adapter passes is in the documented llama-server flags', async () => {
    const r = await checkEngine(new LlamaCppEngine({ bin: join(dir, 'llama-server') }));
    expect(r).toMatchObject({ engine: 'llamacpp', version: '6520 (25d5b0c5)', missingFlags: [], error: '' });
  });

  it.each([
    ['vLLM', 'vllm-serve_flags_excerpt.tsv', (bin: string) => new VllmEngine({ bin, launch_mode: 'mp' })],
    ['SGLang', 'sglang-launch_server_flags_excerpt.tsv', (bin: string) => new SglangEngine({ python: bin })],
  ])('every flag the %s adapter passes is in its documented flags', async (_name, table, make) => {
    const text = readFileSync(join(__dirname, `../../../../fixtures/cli_help/${table}`), 'utf8');
    const help = text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split('\t').slice(1, 3).join(' '))
      .join('\n');
    const helpFile = join(dir, `${table}.help`);
    writeFileSync(helpFile, help + '\n');
    const bin = join(dir, `stand-in-${table}`);
    writeFileSync(bin, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "0.11.0"; exit 0; fi\ncat ${helpFile}\n`);
    chmodSync(bin, 0o755);
    const r = await checkEngine(make(bin));
    expect(r).toMatchObject({ missingFlags: [], error: '' });
  });

  it('a flag missing from --help fails the check with a reason', async () => {
    const r = await checkEngine(new LlamaCppEngine({ bin: join(dir, 'old-llama-server') }));
    expect(r.missingFlags).toEqual(['--metrics']);
    expect(r.error).toBe(`${join(dir, 'old-llama-server')} does not accept --metrics (not in its --help)`);
  });

  it('a missing binary says so', async () => {
    expect((await checkEngine(new VllmEngine({ bin: join(dir, 'vllm'), launch_mode: 'mp' }))).error).toBe(`${join(dir, 'vllm')} not found`);
    expect((await checkEngine(new SglangEngine({ python: 'no-such-python-llmgw' }))).error).toBe('no-such-python-llmgw not found on PATH');
  });

  it('the sim engine passes against its real --help', async () => {
    const r = await checkEngine(new SimEngineAdapter());
    expect(r).toMatchObject({ engine: 'sim', missingFlags: [], error: '' });
    expect(r.version).toMatch(/^\d+\.\d+/);
  }, 60_000);

  it.each([
    ['  --port PORT   the port', ['--port'], []],
    ['  --port-range A-B', ['--port'], ['--port']],
    ['-a, --alias STRING', ['--alias', '-a'], []],
    ['--tp-size TP_SIZE, --tensor-parallel-size TP_SIZE', ['--tp-size', '--tensor-parallel-size'], []],
    ['--master-addr=ADDR', ['--master-addr'], []],
  ])('help %j: missing of %j is %j', (help, flags, want) => expect(missingFlags(help, flags)).toEqual(want));

  it('resolves binaries on PATH', () => {
    expect(resolveBinary('sh')).toMatch(/\/sh$/);
    expect(resolveBinary('llama-server', dir)).toBe(join(dir, 'llama-server'));
  });
});
