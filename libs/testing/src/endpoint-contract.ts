/**
 * Assertions on the endpoint contract (docs/placement.md): what a placed
 * replica's engine enforces and reports, for end-to-end tests of any stack
 * that places sim-engines (the placement harness, `llmgw up`). Each helper
 * speaks to real processes over their public surfaces only.
 */
// zeromq (a native addon) and msgpack load only when a test asks a replay socket.

/** One chat completion straight to an engine, with or without a bearer; status and parsed body. */
export async function engineChat(engineUrl: string, model: string, bearer?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${engineUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 2 }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the caller sees the text
  }
  return { status: res.status, body };
}

/** sim-engine's GET /sim/priorities: generation requests by the `priority` their body carried ("none" = absent). */
export async function simPriorities(engineUrl: string): Promise<Record<string, number>> {
  const res = await fetch(`${engineUrl}/sim/priorities`);
  if (res.status !== 200) throw new Error(`${engineUrl}/sim/priorities answered ${res.status}`);
  return ((await res.json()) as { by_priority: Record<string, number> }).by_priority;
}

/** The sum of a Prometheus metric's samples whose labels include `labels`; 0 when there are none. */
export async function metricValue(adminUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^([^{\s#]+)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += Number(m[3]);
  }
  return total;
}

/**
 * Everything an engine's KV-event replay socket (vLLM's ROUTER,
 * `replay_endpoint`) still buffers: [sequence number, stored block hashes]
 * per batch.
 */
export async function kvReplay(replayEndpoint: string): Promise<Array<[number, bigint[]]>> {
  // receiveTimeout is armed against libuv's cached loop time, stale after a long synchronous step.
  await new Promise((r) => setTimeout(r, 0));
  const zmq = require('zeromq') as typeof import('zeromq');
  const { decode } = require('@msgpack/msgpack') as typeof import('@msgpack/msgpack');
  const d = new zmq.Dealer({ receiveTimeout: 10_000, linger: 0 });
  try {
    d.connect(replayEndpoint);
    await d.send([Buffer.alloc(0), Buffer.alloc(8)]);
    const out: Array<[number, bigint[]]> = [];
    for (;;) {
      const [, , seq, payload] = await d.receive();
      const s = seq.readBigUInt64BE(0);
      if (s === 0xffffffffffffffffn) return out;
      const [, events] = decode(payload, { useBigInt64: true }) as [number, Array<{ type: string; block_hashes?: bigint[] }>];
      out.push([Number(s), events.filter((e) => e.type === 'BlockStored').flatMap((e) => e.block_hashes!)]);
    }
  } finally {
    d.close();
  }
}

/** The sequence number of the batch in which the engine stored `hash`; -1 when it has not (yet). */
export async function kvStoredAt(replayEndpoint: string, hash: bigint): Promise<number> {
  return (await kvReplay(replayEndpoint)).find(([, hs]) => hs.includes(hash))?.[0] ?? -1;
}
