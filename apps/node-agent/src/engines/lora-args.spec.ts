import type { agentV1 } from '@llmgw/contracts';
import { LlamaCppEngine, SglangEngine, SimEngineAdapter, VllmEngine } from './adapters';
import type { NodeContext } from './engine';

const NODE: NodeContext = { mgmtAddr: '10.0.0.5', gpuIndices: [0, 1], fabrics: [] };

function spec(over: Partial<agentV1.ShardSpec__Output> = {}): agentV1.ShardSpec__Output {
  return {
    shardId: 'rep1-r0',
    replicaId: 'rep1',
    model: 'llama-8b',
    profile: 'p',
    engine: 'vllm',
    rank: 0,
    nnodes: 1,
    leaderAddr: '',
    leaderPort: 0,
    gpuIndices: [0],
    hcas: [],
    fabric: '',
    httpPort: 20001,
    modelPath: '/models/llama-8b',
    args: [],
    env: {},
    tensorParallel: 1,
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

const ADAPTERS: agentV1.LoraAdapter__Output[] = [
  { name: 'sql-writer', path: '/cache/sql', weights: null, scale: 1 },
  { name: 'legal', path: '/adapters/legal', weights: null, scale: 0.8 },
];

/** The values after `flag` up to the next flag. */
const valuesOf = (argv: string[], flag: string) => {
  const i = argv.indexOf(flag);
  if (i < 0) return undefined;
  const rest = argv.slice(i + 1);
  const end = rest.findIndex((a) => a.startsWith('--'));
  return end < 0 ? rest : rest.slice(0, end);
};

describe('engines: LoRA adapters on the command line', () => {
  it('vLLM: --enable-lora, --max-loras from max_loaded_adapters, every adapter as --lora-modules name=path', () => {
    const argv = new VllmEngine().build(spec({ adapters: ADAPTERS, maxLoras: 2 }), NODE).argv;
    expect(argv).toContain('--enable-lora');
    expect(valuesOf(argv, '--max-loras')).toEqual(['2']);
    expect(valuesOf(argv, '--lora-modules')).toEqual(['sql-writer=/cache/sql', 'legal=/adapters/legal']);
  });

  it('the sim-engine takes the same vLLM flags (one slot when max_loaded_adapters is unset)', () => {
    const argv = new SimEngineAdapter({ node: 'node', llmgw: 'llmgw.cjs' }).build(spec({ engine: 'sim', adapters: ADAPTERS }), NODE).argv;
    expect(argv).toContain('--enable-lora');
    expect(argv).not.toContain('--max-loras');
    expect(valuesOf(argv, '--lora-modules')).toEqual(['sql-writer=/cache/sql', 'legal=/adapters/legal']);
  });

  it('llama.cpp: every adapter loaded with --lora in catalog order (its id), none applied until a request names it', () => {
    const argv = new LlamaCppEngine().build(spec({ engine: 'llamacpp', adapters: ADAPTERS }), NODE).argv;
    expect(argv.flatMap((a, i) => (a === '--lora' ? [argv[i + 1]] : []))).toEqual(['/cache/sql', '/adapters/legal']);
    expect(argv).toContain('--lora-init-without-apply');
  });

  it("SGLang: every adapter as --lora-paths name=path, --max-loras-per-batch from max_loaded_adapters (SGLang's own default otherwise)", () => {
    const sglang = new SglangEngine();
    const argv = sglang.build(spec({ engine: 'sglang', adapters: ADAPTERS, maxLoras: 2 }), NODE).argv;
    expect(valuesOf(argv, '--lora-paths')).toEqual(['sql-writer=/cache/sql', 'legal=/adapters/legal']);
    expect(valuesOf(argv, '--max-loras-per-batch')).toEqual(['2']);
    // --lora-paths turns LoRA on by itself (older SGLang has no --enable-lora).
    expect(argv).not.toContain('--enable-lora');
    // The profile's own args come last, so an operator's flag can still override.
    const own = sglang.build(spec({ engine: 'sglang', adapters: ADAPTERS, args: ['--lora-backend', 'triton'] }), NODE).argv;
    expect(own).not.toContain('--max-loras-per-batch');
    expect(own.slice(-2)).toEqual(['--lora-backend', 'triton']);
  });

  it('no adapter flag without adapters, and none for an adapter the agent has no path for', () => {
    for (const s of [spec(), spec({ adapters: [{ name: 'x', path: '', weights: null, scale: 1 }] })]) {
      expect(new VllmEngine().build(s, NODE).argv.filter((a) => a.includes('lora'))).toEqual([]);
      expect(new LlamaCppEngine().build({ ...s, engine: 'llamacpp' }, NODE).argv.filter((a) => a.includes('lora'))).toEqual([]);
      expect(new SglangEngine().build({ ...s, engine: 'sglang' }, NODE).argv.filter((a) => a.includes('lora'))).toEqual([]);
    }
  });
});
