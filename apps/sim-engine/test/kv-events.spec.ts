import * as zmq from 'zeromq';
import { decode } from '@msgpack/msgpack';
import { blockHashes, llama3ChatTokens } from '@llmgw/prefix';
import { createLogger } from '@llmgw/observability';
import { kvEventsFromJson } from '../src/main';
import { KvEventBus } from '../src/kv-events';
import { KvPublisher } from '../src/kv-publisher';
import { Engines, postJson } from './helpers';
import { waitUntil } from '@llmgw/testing';

/** Reads wire batches from a SUB socket; `next()` waits for one (fails loudly after 40 s). */
class Sub {
  readonly sock = new zmq.Subscriber({ receiveTimeout: 40_000 });
  constructor(endpoint: string) {
    this.sock.connect(endpoint);
    this.sock.subscribe();
  }
  async next(): Promise<Wire> {
    const [topic, seq, payload] = await this.sock.receive();
    return { topic: topic.toString(), seq: seq.readBigUInt64BE(0), batch: decode(payload, { useBigInt64: true }) as never };
  }
  /**
   * PUB/SUB joins asynchronously: calls `poke` (which must publish a batch) until the first batch
   * arrives, and returns it. A loaded machine can take seconds; a receive that fails ends the wait at once.
   */
  async first(poke: () => unknown, seen?: () => unknown): Promise<Wire> {
    let got: Wire | undefined;
    let failed: unknown;
    const p = this.next().then(
      (m) => (got = m),
      (e) => (failed = e),
    );
    await waitUntil(
      async () => {
        if (failed) throw failed;
        if (!got) await poke();
        return got;
      },
      'the first KV event batch',
      { everyMs: 25, timeoutMs: 40_000, seen },
    );
    await p;
    return got!;
  }
}
type Wire = { topic: string; seq: bigint; batch: [number, Array<Record<string, unknown>>, number] };

const SYS = 'You are a meticulous assistant who answers in full sentences. '.repeat(12);
const messages = (q: string) => [
  { role: 'system', content: SYS },
  { role: 'user', content: q },
];

describe('sim-engine KV events (vLLM --kv-events-config)', () => {
  const engines = new Engines();
  const socks: zmq.Socket[] = [];
  afterEach(async () => {
    for (const s of socks.splice(0)) s.close();
    await engines.closeAll();
  });

  it('publishes BlockStored with vLLM sha256_cbor hashes of the Llama 3 chat tokens, in sequence', async () => {
    const h = await engines.start({
      tokenizer: 'llama3',
      hashSeed: '42',
      prefillTps: 0,
      decodeTps: 0,
      kvEventsConfig: { endpoint: 'tcp://127.0.0.1:0', replayEndpoint: 'tcp://127.0.0.1:0', topic: 'kv@test@sim' },
    });
    expect(h.kvEvents!.endpoint).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const sub = new Sub(h.kvEvents!.endpoint);
    socks.push(sub.sock);
    // Each warm-up must store blocks of its own, or only the first would publish anything: "warm-up N"
    // alone ends inside the block after the system prompt's, which is never full, and a join later
    // than that first batch saw nothing.
    let i = 0;
    const warmUp = (n: number) => messages(`warm-up ${n}: ${'a question long enough to fill a block of its own. '.repeat(2)}`);
    const first = await sub.first(
      () => postJson(`${h.url}/v1/chat/completions`, { model: 'sim-model', messages: warmUp(i++), max_tokens: 1 }),
      () => ({ requestsSent: i }),
    );
    expect(first.topic).toBe('kv@test@sim');

    const q = messages('What is a prefix cache?');
    await postJson(`${h.url}/v1/chat/completions`, { model: 'sim-model', messages: q, max_tokens: 1 });
    const expected = blockHashes(llama3ChatTokens(q), { blockSize: 16, hashSeed: '42' });
    // The system prompt's blocks were stored by the warm-up; this request stores the rest of its own.
    let stored: bigint[] = [];
    let lastSeq = first.seq;
    while (!stored.includes(expected[expected.length - 1])) {
      const m = await sub.next();
      expect(m.seq).toBe(lastSeq + 1n);
      lastSeq = m.seq;
      const [ts, events, rank] = m.batch;
      expect(typeof ts).toBe('number');
      expect(rank).toBe(0);
      for (const ev of events) {
        if (ev.type !== 'BlockStored') continue;
        expect(ev).toMatchObject({ block_size: 16, medium: 'GPU', lora_id: null, lora_name: null });
        stored = stored.concat(ev.block_hashes as bigint[]);
      }
    }
    // Every stored hash of this request is one of vLLM's hashes for its tokens, in chain order.
    const tail = stored.slice(stored.indexOf(expected.find((x) => stored.includes(x))!));
    expect(expected.slice(expected.length - tail.length)).toEqual(tail);
  }, 120_000);

  it('sends every batch, in sequence, when one turn of the event loop emits hundreds', async () => {
    // zeromq.js resolves at most 512 sends without waiting and throws EBUSY at a send made while it
    // defers one; a burst past that must still go out whole and in order.
    const bus = new KvEventBus();
    const log = createLogger({ service: 'test', level: 'silent' });
    const pub = await KvPublisher.start(bus, { endpoint: 'tcp://127.0.0.1:0', topic: 't', bufferSteps: 10_000, blockSize: 16, hashSeed: '0', log });
    try {
      const sub = new Sub(pub.endpoint);
      socks.push(sub.sock);
      let emitted = 0;
      const emit = () => {
        emitted++;
        bus.push({ type: 'AllBlocksCleared' });
        bus.flush();
      };
      const first = await sub.first(emit);
      // Whatever the join let through before `first` arrived is still on its way; then the burst.
      const burst = 800;
      for (let k = 0; k < burst; k++) emit();
      const last = BigInt(emitted - 1);
      let seq = first.seq;
      while (seq < last) {
        const m = await sub.next();
        expect(m.seq).toBe(seq + 1n);
        seq = m.seq;
      }
    } finally {
      pub.close();
    }
  }, 120_000);

  it('replays a dropped batch from its buffer, then sends the end marker', async () => {
    const h = await engines.start({ prefillTps: 0, decodeTps: 0, kvEventsConfig: { endpoint: 'tcp://127.0.0.1:0', replayEndpoint: 'tcp://127.0.0.1:0' } });
    for (let i = 0; i < 3; i++)
      await postJson(`${h.url}/v1/chat/completions`, { model: 'sim-model', messages: messages(`question ${i} `.repeat(10)), max_tokens: 1 });
    const d = new zmq.Dealer({ receiveTimeout: 20_000 });
    socks.push(d);
    d.connect(h.kvEvents!.replayEndpoint!);
    const from = Buffer.alloc(8);
    from.writeBigUInt64BE(1n);
    await d.send([Buffer.alloc(0), from]);
    const seqs: bigint[] = [];
    for (;;) {
      const [empty, topic, seq, payload] = await d.receive();
      expect(empty.byteLength).toBe(0);
      expect(topic.toString()).toBe('');
      const s = seq.readBigUInt64BE(0);
      if (s === 0xffffffffffffffffn) {
        expect(payload.byteLength).toBe(0);
        break;
      }
      seqs.push(s);
    }
    expect(seqs[0]).toBe(1n);
    expect(seqs.length).toBeGreaterThanOrEqual(2);
    seqs.forEach((s, i) => expect(s).toBe(BigInt(i + 1)));
  }, 60_000);

  it("parses vLLM's --kv-events-config JSON", () => {
    expect(
      kvEventsFromJson('{"enable_kv_cache_events":true,"publisher":"zmq","endpoint":"tcp://*:5557","replay_endpoint":"tcp://*:5558","topic":"kv"}'),
    ).toEqual({
      endpoint: 'tcp://*:5557',
      replayEndpoint: 'tcp://*:5558',
      topic: 'kv',
    });
    expect(kvEventsFromJson('{"enable_kv_cache_events":false}')).toBeUndefined();
    expect(() => kvEventsFromJson('{"enable_kv_cache_events":true,"nope":1}')).toThrow(/unknown keys nope/);
    expect(() => kvEventsFromJson('{')).toThrow(/not JSON/);
  });
});
