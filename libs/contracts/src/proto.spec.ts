import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import OPTIONS from './proto-options.json';
import { PROTO_GEN_FLAGS, PROTO_LOADER_OPTIONS, agentV1, controlV1, loadProto, protoPath, protoRoot, type ProtoTypes } from './index';

const generator = require(join(__dirname, '../../../tools/scripts/proto-gen.cjs')) as { FLAGS: string[]; OPTIONS: unknown };

describe('loader options and generator flags come from one place', () => {
  it('the generator script passes exactly PROTO_GEN_FLAGS', () => {
    expect(generator.FLAGS).toEqual(PROTO_GEN_FLAGS);
    expect(generator.OPTIONS).toEqual(OPTIONS);
  });

  it('PROTO_LOADER_OPTIONS say what the flags say', () => {
    expect(PROTO_LOADER_OPTIONS).toEqual({ keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true });
    expect(PROTO_GEN_FLAGS).toEqual(['--longs=Number', '--enums=String', '--defaults', '--oneofs', '--grpcLib=@grpc/grpc-js']);
  });
});

describe('loadProto', () => {
  it.each([
    ['llmgw/agent/v1/agent.proto', (p: any) => p.llmgw.agent.v1.AgentService, { Connect: [true, true] }],
    [
      'llmgw/inventory/v1/inventory.proto',
      (p: any) => p.llmgw.inventory.v1.InventoryService,
      { WatchFleet: [false, true], ListNodes: [false, false], SendShardCommand: [false, false], FetchLogs: [false, true], SetNodeIntent: [false, false] },
    ],
    [
      'llmgw/control/v1/control.proto',
      (p: any) => p.llmgw.control.v1.ControlService,
      {
        ListNodes: [false, false],
        GetNode: [false, false],
        ListModels: [false, false],
        ListReplicas: [false, false],
        CordonNode: [false, false],
        UncordonNode: [false, false],
        DrainNode: [false, false],
        ExplainPlacement: [false, false],
        SetModelTarget: [false, false],
        ListQuotas: [false, false],
        SetQuota: [false, false],
        Logs: [false, true],
      },
    ],
  ] as const)('%s defines the service the generated types describe', (rel, pick, methods) => {
    const svc = pick(loadProto(rel as keyof ProtoTypes));
    expect(Object.keys(svc.service).sort()).toEqual(Object.keys(methods).sort());
    for (const [m, [reqStream, resStream]] of Object.entries(methods)) {
      expect([svc.service[m].requestStream, svc.service[m].responseStream]).toEqual([reqStream, resStream]);
    }
  });

  it('decodes with the run-time options: camelCase, string enums, number longs, oneof names, absent optionals', () => {
    const svc = loadProto('llmgw/agent/v1/agent.proto').llmgw.agent.v1.AgentService.service.Connect;
    const wire = svc.requestSerialize({
      register: { node: { nodeId: 'gpu-a-01', gpus: [{ index: 0, memoryTotalMib: 81559, gpuClass: 'h100-80g' }] }, agentStartedAtMs: 1_764_000_000_123 },
    });
    const back = svc.requestDeserialize(wire);
    expect(back.msg).toBe('register');
    expect(back.register?.node?.nodeId).toBe('gpu-a-01');
    expect(back.register?.agentStartedAtMs).toBe(1_764_000_000_123);
    expect(back.register?.node?.gpus[0].memoryTotalMib).toBe(81559);
    expect(back.register?.runningShards).toEqual([]);

    const stats = svc.requestSerialize({ stats: { shardId: 's', waiting: 3, running: 5, kvUsage: 0 } });
    const s = svc.requestDeserialize(stats).stats!;
    expect(s.kvUsage).toBe(0); // present-and-zero survives
    expect(s.blockSize).toBeUndefined(); // absent stays absent, not 0

    const ctl = loadProto('llmgw/agent/v1/agent.proto').llmgw.agent.v1.AgentService.service.Connect;
    const ack = ctl.responseDeserialize(ctl.responseSerialize({ ack: { refId: 'x', result: 'ACK_RESULT_ACCEPTED' } }));
    expect(ack.ack?.result).toBe('ACK_RESULT_ACCEPTED');
    expect(ctl.responseDeserialize(ctl.responseSerialize({ ack: { refId: 'x' } })).ack?.result).toBe('ACK_RESULT_UNSPECIFIED');
  });

  it('re-exports generated enum values at run time through the package namespaces', () => {
    expect(agentV1.ShardState.SHARD_STATE_READY).toBe('SHARD_STATE_READY');
    expect(controlV1.RejectReason.REJECT_REASON_GPU_CLASS).toBe('REJECT_REASON_GPU_CLASS');
  });

  it('resolves paths under the repository proto/ folder', () => {
    expect(relative(protoRoot(), protoPath('llmgw/agent/v1/agent.proto'))).toBe(join('llmgw', 'agent', 'v1', 'agent.proto'));
  });
});

// Every message, field, enum, service and rpc in these packages has a doc
// comment (a `//` line directly above it, or a trailing one for fields).
const DOCUMENTED = ['llmgw/agent/v1', 'llmgw/inventory/v1', 'llmgw/control/v1'];

function undocumented(file: string): string[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const missing: string[] = [];
  let depth = 0;
  const stack: string[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    const opens = (line.match(/{/g) ?? []).length;
    const closes = (line.match(/}/g) ?? []).length;
    const above = lines[i - 1]?.trim() ?? '';
    const hasDoc = above.startsWith('//') || /\/\/.+$/.test(line);
    const decl = /^(message|enum|service|rpc|oneof)\s+(\w+)/.exec(line);
    const field = /^(?:repeated\s+|optional\s+)?(?:map<[^>]+>|[\w.]+)\s+(\w+)\s*=\s*\d+;/.exec(line);
    const inEnum = stack[stack.length - 1] === 'enum';
    if (decl && decl[1] !== 'oneof' && !hasDoc) missing.push(`${i + 1}: ${decl[1]} ${decl[2]}`);
    // Fields need docs, except inside oneofs (the envelope's comment names each case) and enum values.
    const inOneof = stack[stack.length - 1] === 'oneof';

    if (field && !inEnum && !inOneof && !hasDoc) missing.push(`${i + 1}: field ${field[1]}`);
    if (decl) stack.push(decl[1]);
    depth += opens - closes;
    for (let c = 0; c < closes - (decl ? opens : 0) && stack.length > depth; c++) stack.pop();
    while (stack.length > depth) stack.pop();
  });
  return missing;
}

describe('proto style', () => {
  const { describePackage } = require(join(__dirname, '../../../tools/scripts/proto-gen.cjs')) as { describePackage: (dir: string) => { lock: any } };
  const snake = (n: string) => n.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
  it.each(DOCUMENTED)('%s: enums start at <ENUM>_UNSPECIFIED = 0 and prefix every value; times are int64 *_ms', (dir) => {
    const { lock } = describePackage(protoPath(dir));
    for (const [name, values] of Object.entries<Record<string, number>>(lock.enums)) {
      const prefix = snake(name.split('.').pop()!);
      expect([name, Object.entries(values).find(([, n]) => n === 0)?.[0]]).toEqual([name, `${prefix}_UNSPECIFIED`]);
      for (const v of Object.keys(values)) expect(v.startsWith(`${prefix}_`) ? v : `${name}.${v}`).toBe(v);
    }
    for (const [msg, fields] of Object.entries<Record<string, string>>(lock.messages)) {
      for (const [f, desc] of Object.entries(fields)) {
        if (/_at_ms$|^at_ms$|_since_ms$|^since_ms$/.test(f)) expect(`${msg}.${f}: ${desc.split(' ').slice(1).join(' ')}`).toBe(`${msg}.${f}: int64`);
      }
    }
  });
});

describe('proto doc comments', () => {
  const files = DOCUMENTED.flatMap((d) =>
    readdirSync(protoPath(d))
      .filter((f) => f.endsWith('.proto'))
      .map((f) => join(d, f)),
  );
  it.each(files)('%s documents every message, field, enum, service and rpc', (rel) => {
    expect(undocumented(protoPath(rel))).toEqual([]);
  });
});

describe('wire lock: v1 changes are additive only', () => {
  const { breakingChanges, describePackage } = require(join(__dirname, '../../../tools/scripts/proto-gen.cjs')) as {
    breakingChanges: (old: any, now: any, reserved: any) => string[];
    describePackage: (dir: string) => { lock: any; reserved: any };
  };
  const base = {
    messages: { 'p.M': { a: '1 string', b: '2 repeated uint32', c: '3 p.Other' } },
    enums: { 'p.E': { E_UNSPECIFIED: 0, E_ONE: 1 } },
    services: { 'p.S': { Call: 'Req -> Res' } },
  };
  const clone = () => JSON.parse(JSON.stringify(base));
  const noReserved = { 'p.M': { ranges: [], names: [] } };

  it.each([
    [
      'adding a field, a value, an rpc, a message',
      (n: any) => {
        n.messages['p.M'].d = '4 bool';
        n.enums['p.E'].E_TWO = 2;
        n.services['p.S'].Other = 'A -> stream B';
        n.messages['p.N'] = {};
      },
      noReserved,
      [],
    ],
    [
      'removing a field whose number is reserved',
      (n: any) => {
        delete n.messages['p.M'].b;
      },
      { 'p.M': { ranges: [[2, 2]], names: [] } },
      [],
    ],
    [
      'removing a field without reserving it',
      (n: any) => {
        delete n.messages['p.M'].b;
      },
      noReserved,
      [/p\.M\.b \(= 2\) was removed without `reserved 2;`/],
    ],
    [
      'renumbering a field',
      (n: any) => {
        n.messages['p.M'].a = '5 string';
      },
      noReserved,
      [/p\.M\.a changed from "1 string" to "5 string"/],
    ],
    [
      'changing a type',
      (n: any) => {
        n.messages['p.M'].a = '1 bytes';
      },
      noReserved,
      [/changed/],
    ],
    [
      'making a field repeated',
      (n: any) => {
        n.messages['p.M'].a = '1 repeated string';
      },
      noReserved,
      [/changed/],
    ],
    [
      'reusing a number under a new name',
      (n: any) => {
        delete n.messages['p.M'].c;
        n.messages['p.M'].z = '3 string';
      },
      noReserved,
      [/number 3 \(was c\) is reused by z/],
    ],
    [
      'removing an enum value',
      (n: any) => {
        delete n.enums['p.E'].E_ONE;
      },
      noReserved,
      [/E_ONE \(= 1\) was removed/],
    ],
    [
      'changing an rpc to streaming',
      (n: any) => {
        n.services['p.S'].Call = 'Req -> stream Res';
      },
      noReserved,
      [/p\.S\.Call changed/],
    ],
    [
      'removing a message',
      (n: any) => {
        delete n.messages['p.M'];
      },
      {},
      [/message p\.M was removed/],
    ],
  ])('%s', (_what, change, reserved, want) => {
    const now = clone();
    change(now);
    const got = breakingChanges(base, now, reserved);
    expect(got).toHaveLength(want.length);
    want.forEach((re, i) => expect(got[i]).toMatch(re));
  });

  it('describes a real package: fields with number, label and type; rpc signatures', () => {
    const { lock } = describePackage(protoPath('llmgw/agent/v1'));
    expect(lock.messages['llmgw.agent.v1.Gpu'].nvlink_peers).toBe('9 repeated uint32');
    expect(lock.enums['llmgw.agent.v1.ShardState'].SHARD_STATE_FAILED).toBe(7);
    expect(lock.services['llmgw.agent.v1.AgentService'].Connect).toBe('stream AgentMessage -> stream ControlMessage');
  });
});
