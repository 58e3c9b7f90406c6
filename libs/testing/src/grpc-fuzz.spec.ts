import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoRoot } from '@llmgw/contracts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  callRaw,
  echoes,
  encodeMessage,
  fuzzCases,
  isDeserializeError,
  leakOf,
  loadFuzzMethods,
  OVERSIZE_CHAR,
  sampleCases,
  scalar,
  varint,
  type FuzzMethod,
} from './grpc-fuzz';

// What grpc-js would hand a handler for these bytes: the request type decoded with longs as strings.
const decoders = new Map<string, (b: Buffer) => Record<string, unknown>>();
function decode(m: FuzzMethod, bytes: Buffer): Record<string, unknown> {
  let d = decoders.get(m.request);
  if (!d) {
    const files = readdirSync(join(protoRoot(), 'llmgw'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.proto'))
      .map((f) => join('llmgw', f));
    const def = protoLoader.loadSync(files, { keepCase: false, longs: String, enums: Number, defaults: false, oneofs: true, includeDirs: [protoRoot()] });
    const entry = def[m.request] as unknown as { deserialize(b: Buffer): Record<string, unknown> };
    d = (b) => entry.deserialize(b);
    decoders.set(m.request, d);
  }
  return d(bytes);
}

const methods = loadFuzzMethods();
const method = (path: string) => {
  const m = methods.find((x) => x.path.endsWith(path));
  if (!m) throw new Error(`no method ${path}`);
  return m;
};

describe('grpc fuzz: methods from the protos', () => {
  it('finds every rpc declared under proto/, with its streaming shape and request type', () => {
    const declared: string[] = [];
    for (const f of readdirSync(join(protoRoot(), 'llmgw'), { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('.proto'))) {
      const text = readFileSync(join(protoRoot(), 'llmgw', f), 'utf8');
      for (const m of text.matchAll(/^\s*rpc (\w+)\(/gm)) declared.push(m[1]);
    }
    expect(methods.map((m) => m.method).sort()).toEqual(declared.sort());
    expect(method('AgentService/Connect')).toMatchObject({ requestStream: true, responseStream: true, request: 'llmgw.agent.v1.AgentMessage' });
    expect(method('ControlService/Logs')).toMatchObject({ requestStream: false, responseStream: true, request: 'llmgw.control.v1.LogsRequest' });
    expect(method('TenancyAdmin/GetOrg').request).toBe('llmgw.accounting.v1.Ref');
  });

  it('knows which fields are oneof members (and which are not)', () => {
    const fields = (n: string) => Object.fromEntries(methods[0].types.messages.get(n)!.fields.map((f) => [f.name, f.oneof]));
    expect(fields('llmgw.inventory.v1.ShardCommandRequest')).toEqual({ nodeId: undefined, start: 0, stop: 0, drain: 0, fencingToken: undefined });
    expect(fields('llmgw.control.v1.LogsRequest').nodeId).toBeUndefined();
  });
});

describe('grpc fuzz: wire encoding', () => {
  it('encodes varints as protobuf does, negatives as ten bytes', () => {
    expect(varint(300n)).toEqual(Buffer.from([0xac, 0x02]));
    expect(varint(0n)).toEqual(Buffer.from([0]));
    expect(varint(-1n)).toEqual(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
  });

  it('encodes messages a real decoder reads back', () => {
    const m = method('TenancyAdmin/ListAudit');
    const bytes = encodeMessage([
      [1, scalar('int64', (1n << 63n) - 1n)],
      [2, scalar('int32', -5n)],
      [3, scalar('string', 'org-1')],
    ]);
    expect(decode(m, bytes)).toEqual({ sinceMs: '9223372036854775807', limit: -5, targetId: 'org-1' });
  });
});

describe('grpc fuzz: cases', () => {
  it('makes whole-message cases for every method', () => {
    for (const m of methods) {
      const cats = new Set(fuzzCases(m).map((c) => c.category));
      for (const c of ['empty', 'base', 'random', 'truncated', 'unknown-field', 'wire-type']) expect([m.path, cats.has(c as never)]).toEqual([m.path, true]);
      if (m.requestStream) expect([m.path, cats.has('stream-garbage')]).toEqual([m.path, true]);
    }
  });

  it('breaks every string with 100 KB and control characters, and the base decodes', () => {
    const m = method('TenancyAdmin/CreateOrg');
    const cases = fuzzCases(m);
    const by = (id: string) => decode(m, cases.find((c) => c.id === id)!.frames[0]);
    expect(by('base')).toEqual({ name: 'fuzz-name' });
    expect(by('oversized:name:100000').name).toBe(OVERSIZE_CHAR.repeat(100_000));
    expect(cases.find((c) => c.id === 'oversized:name:100000')!.probes[0]).toHaveLength(100_000);
    expect(by('control-chars:name:nul').name).toBe('fuzz\u0000nul');
    expect(by('control-chars:name:esc').name).toBe('\u001b[2J');
    expect(by('control-chars:name:del').name).toBe('x\u007f');
    // A varint where a string belongs (tag 1, wire type 0, value 1): a decoder drops or refuses it.
    const wrong = cases.find((c) => c.id === 'wire-type:name:varint')!.frames[0];
    expect(wrong).toEqual(Buffer.from([0x08, 0x01]));
    let seen: Record<string, unknown> | undefined;
    try {
      seen = decode(m, wrong);
    } catch {
      seen = undefined;
    }
    expect(seen?.name ?? '').toBe('');
    // Random bytes and truncations usually do not decode; an empty message always does.
    expect(by('empty')).toEqual({});
  });

  it('sends int64 and int32 extremes, unknown enum numbers and 10,000-element repeated fields', () => {
    const audit = method('TenancyAdmin/ListAudit');
    const a = fuzzCases(audit);
    const get = (cs: typeof a, m: FuzzMethod, id: string) => decode(m, cs.find((c) => c.id === id)!.frames[0]);
    expect(get(a, audit, 'int-extreme:sinceMs:max').sinceMs).toBe('9223372036854775807');
    expect(get(a, audit, 'int-extreme:sinceMs:min').sinceMs).toBe('-9223372036854775808');
    expect(get(a, audit, 'int-extreme:sinceMs:2^53+1').sinceMs).toBe('9007199254740993');
    expect(get(a, audit, 'int-extreme:limit:min').limit).toBe(-2147483648);

    const logs = method('ControlService/Logs');
    const l = fuzzCases(logs);
    expect(get(l, logs, 'enum:source:9999').source).toBe(9999);

    const hb = method('AgentService/Connect');
    const h = fuzzCases(hb);
    const shards = get(h, hb, 'repeated:heartbeat.shards:10000') as { heartbeat?: { shards?: unknown[] } };
    expect(shards.heartbeat?.shards).toHaveLength(10_000);
  });

  it('chooses the oneof member a mutation is about, and names the base fields it was given', () => {
    const m = method('AgentService/Connect');
    const cases = fuzzCases(m, { base: { 'register.node.nodeId': 'test-node-1' } });
    const base = decode(m, cases.find((c) => c.id === 'base')!.frames[0]) as { register?: { node?: { nodeId?: string } }; heartbeat?: unknown };
    expect(base.register?.node?.nodeId).toBe('test-node-1');
    expect(base.heartbeat).toBeUndefined();
    const seq = decode(m, cases.find((c) => c.id === 'int-extreme:heartbeat.seq:max')!.frames[0]) as { register?: unknown; heartbeat?: { seq?: string } };
    expect(seq.register).toBeUndefined();
    expect(seq.heartbeat?.seq).toBe('18446744073709551615');
    // Garbage after a good first frame, for a stream.
    const g = cases.find((c) => c.category === 'stream-garbage')!;
    expect(g.frames.length).toBeGreaterThan(1);
    expect(g.frames[0]).toEqual(cases.find((c) => c.id === 'base')!.frames[0]);
  });

  it('is deterministic per seed, and samples keep every category', () => {
    const m = method('TenancyAdmin/CreateKey');
    const ids = (seed: number) => fuzzCases(m, { seed }).map((c) => c.frames.map((f) => f.toString('hex')).join('|'));
    expect(ids(7)).toEqual(ids(7));
    expect(ids(7)).not.toEqual(ids(8));
    const all = fuzzCases(m);
    const s = sampleCases(all, 14);
    expect(s).toHaveLength(14);
    expect(new Set(s.map((c) => c.category))).toEqual(new Set(all.map((c) => c.category)));
    expect(sampleCases(all, 14).map((c) => c.id)).toEqual(s.map((c) => c.id));
  });
});

describe('grpc fuzz: judging answers', () => {
  it('spots stack traces, SQL and file paths in a status message', () => {
    expect(leakOf('Error: boom\n    at Foo.bar (/work/x/apps/accounting/src/service.ts:10:5)')).toBe('stack');
    expect(leakOf('invalid byte sequence for encoding "UTF8": 0x00')).toBe('sql');
    expect(leakOf('insert into "org" ("name") values ($1) - duplicate key value violates unique constraint')).toBe('sql');
    expect(leakOf("ENOENT: no such file or directory, open '/home/u/.llmgw/x'")).toBe('path');
    expect(leakOf('name must be 1-100 characters without control characters')).toBeUndefined();
    expect(leakOf('org "fuzz-ref" not found')).toBeUndefined();
  });

  it('counts an echo only past 256 characters of a probe', () => {
    const probe = OVERSIZE_CHAR.repeat(100_000);
    expect(echoes(`org "${probe}" not found`, [probe])).toBe(true);
    expect(echoes(`org "${probe.slice(0, 64)}…" not found`, [probe])).toBe(false);
    expect(echoes('x'.repeat(400), [probe])).toBe(false);
    expect(isDeserializeError('Error deserializing request: index out of range')).toBe(true);
  });
});

describe('grpc fuzz: raw calls', () => {
  let server: grpc.Server;
  let address: string;
  beforeAll(async () => {
    server = new grpc.Server();
    const id = (b: Buffer) => b;
    const def: grpc.ServiceDefinition = {
      Echo: {
        path: '/t.T/Echo',
        requestStream: false,
        responseStream: false,
        requestSerialize: id,
        requestDeserialize: id,
        responseSerialize: id,
        responseDeserialize: id,
      },
      Fail: {
        path: '/t.T/Fail',
        requestStream: false,
        responseStream: false,
        requestSerialize: id,
        requestDeserialize: id,
        responseSerialize: id,
        responseDeserialize: id,
      },
      Never: {
        path: '/t.T/Never',
        requestStream: false,
        responseStream: false,
        requestSerialize: id,
        requestDeserialize: id,
        responseSerialize: id,
        responseDeserialize: id,
      },
      Sink: {
        path: '/t.T/Sink',
        requestStream: true,
        responseStream: true,
        requestSerialize: id,
        requestDeserialize: id,
        responseSerialize: id,
        responseDeserialize: id,
      },
    };
    server.addService(def, {
      Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, call.request),
      Fail: (_call: unknown, cb: grpc.sendUnaryData<Buffer>) => cb({ code: grpc.status.INTERNAL, details: 'internal error' }),
      Never: () => undefined,
      // Counts frames; answers a status only after three.
      Sink: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
        let n = 0;
        call.on('data', () => {
          if (++n === 3) call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: 'three' });
        });
      },
    });
    const port = await new Promise<number>((res, rej) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))),
    );
    address = `127.0.0.1:${port}`;
  });
  afterAll(() => server.forceShutdown());

  const unary = (path: string) => ({ path, requestStream: false, responseStream: false });
  it('reports OK, the status, or a hang', async () => {
    expect(await callRaw(address, undefined, unary('/t.T/Echo'), [Buffer.from([1, 2])])).toMatchObject({ code: 'OK', data: true });
    expect(await callRaw(address, undefined, unary('/t.T/Fail'), [Buffer.alloc(0)])).toMatchObject({ code: 'INTERNAL', message: 'internal error' });
    expect(await callRaw(address, undefined, unary('/t.T/Never'), [Buffer.alloc(0)], { hangMs: 300 })).toMatchObject({ code: 'HANG' });
  });

  it('writes every frame of a stream before it waits for the status', async () => {
    const sink = { path: '/t.T/Sink', requestStream: true, responseStream: true };
    expect(await callRaw(address, undefined, sink, [Buffer.from([1]), Buffer.from([2]), Buffer.from([3])], { hangMs: 5_000 })).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'three',
    });
    expect((await callRaw(address, undefined, sink, [Buffer.from([1])], { hangMs: 300 })).code).toBe('HANG');
  });
});
