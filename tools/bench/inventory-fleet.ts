/**
 * Issue 10's benchmark: N simulated agents × 8 GPUs connected to one
 * inventory process (a real `llmgw inventory`, plaintext fleet port), each
 * agent a real gRPC client with its own channel speaking the real agent
 * protocol (Register with 2 running shards, heartbeats every 5 s with 8 GPU
 * reports and the shard list, engine stats every 2 s per leader shard).
 * Reports: time to register all, inventory CPU and RSS while idle, during
 * registration and under the sustained heartbeat + stats load, heartbeats
 * sent, and the latency of ListNodes / a WatchFleet snapshot of the fleet.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/inventory-fleet.ts                 # 1000 agents, 60 s steady
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/inventory-fleet.ts --agents 200 --seconds 20
 *   npx tsx --tsconfig tsconfig.base.json tools/bench/inventory-fleet.ts --redis redis://127.0.0.1:6379
 */
import { InventoryClient } from '@llmgw/inventory-rpc';
import { SimAgent, spawnRole } from '@llmgw/testing';
import { procUsage } from './lib/open-loop';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
}

async function measure<T>(pid: number, f: () => Promise<T>): Promise<{ r: T; wallS: number; cpuPct: number; rssMiB: number }> {
  const a = procUsage(pid);
  const t0 = process.hrtime.bigint();
  const r = await f();
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const b = procUsage(pid);
  return { r, wallS, cpuPct: ((b.cpuS - a.cpuS) / wallS) * 100, rssMiB: b.rssMiB };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function run(): Promise<void> {
  const n = Number(arg('agents', '1000'));
  const steadyS = Number(arg('seconds', '60'));
  const redis = arg('redis', '');
  const prefix = `bench:inv:${randomBytes(4).toString('hex')}:`;
  const args = ['--port', '0', '--agent-listen', '127.0.0.1:0', '--admin-port', '0', '--log-level', 'warn'];
  if (redis) args.push('--redis-url', redis, '--redis-prefix', prefix);
  const inv = await spawnRole('inventory', args, { timeoutMs: 60_000, keepOutput: false });
  const pid = inv.pid;
  console.log(
    `inventory pid ${pid}${redis ? ` (Redis-shared store at ${redis})` : ' (in-process store)'}; ${n} agents × 8 GPUs, heartbeat 5 s, stats 2 s per leader shard`,
  );
  const agents: SimAgent[] = [];
  try {
    const idle = await measure(pid, () => sleep(3000));
    console.log(`idle:          cpu ${idle.cpuPct.toFixed(1)}%  rss ${idle.rssMiB.toFixed(0)} MiB`);
    const address = inv.urls.agents.replace('http://', '');
    const reg = await measure(pid, async () => {
      const started: Array<Promise<void>> = [];
      for (let i = 0; i < n; i++) {
        const id = `node-${String(i).padStart(4, '0')}`;
        const a = new SimAgent({
          address,
          nodeId: id,
          heartbeatIntervalMs: 5000,
          statsIntervalMs: 2000,
          fabric: `ib-${'abcd'[i % 4]}`,
          runningShards: [0, 1].map((k) => ({
            shardId: `${id}-m${k}-r0`,
            replicaId: `${id}-m${k}`,
            state: 'SHARD_STATE_READY' as const,
            endpoint: `http://10.0.${i % 250}.${k}:8000`,
            spec: {
              shardId: `${id}-m${k}-r0`,
              replicaId: `${id}-m${k}`,
              model: `model-${k}`,
              engine: 'vllm',
              rank: 0,
              nnodes: 1,
              gpuIndices: [k * 4, k * 4 + 1, k * 4 + 2, k * 4 + 3],
            },
          })),
        });
        agents.push(a);
        started.push(a.start(120_000));
        // Agents of a real fleet do not all dial in the same millisecond.
        if (i % 50 === 49) await sleep(10);
      }
      await Promise.all(started);
    });
    console.log(
      `registration:  ${n} agents in ${reg.wallS.toFixed(1)} s (${(n / reg.wallS).toFixed(0)}/s)  cpu ${reg.cpuPct.toFixed(1)}%  rss ${reg.rssMiB.toFixed(0)} MiB`,
    );
    const client = new InventoryClient({ address: inv.urls.grpc.replace('http://', ''), callTimeoutMs: 30_000 });
    const list = await client.listNodes();
    if (list.nodes.length !== n) throw new Error(`ListNodes has ${list.nodes.length} nodes, want ${n}`);
    const bad = list.nodes.filter((x) => x.connectivity !== 'CONNECTIVITY_CONNECTED' || x.shards.length !== 2).length;
    console.log(
      `fleet:         ${list.nodes.length} nodes, ${list.nodes.reduce((s, x) => s + (x.info?.gpus.length ?? 0), 0)} GPUs, ${bad} not connected with their 2 shards`,
    );
    await sleep(6000);
    const steady = await measure(pid, () => sleep(steadyS * 1000));
    const beats = (n * steadyS) / 5;
    const stats = (n * 2 * steadyS) / 2;
    console.log(
      `steady ${steadyS}s:    cpu ${steady.cpuPct.toFixed(1)}%  rss ${steady.rssMiB.toFixed(0)} MiB  (~${(beats / steadyS).toFixed(0)} heartbeats/s + ~${(stats / steadyS).toFixed(0)} engine stats/s)`,
    );
    const after = await client.listNodes();
    const unreachable = after.nodes.filter((x) => x.connectivity !== 'CONNECTIVITY_CONNECTED').length;
    console.log(`liveness:      ${unreachable} of ${n} nodes not connected after the steady phase (heartbeats kept up: ${unreachable === 0 ? 'yes' : 'NO'})`);
    const lat: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = Date.now();
      await client.listNodes();
      lat.push(Date.now() - t);
    }
    lat.sort((a, b) => a - b);
    const t = Date.now();
    await new Promise<void>((resolve) => {
      const w = client.watchFleet({
        onEvent: (e) => {
          if (e.event === 'snapshot') {
            w.close();
            resolve();
          }
        },
      });
    });
    console.log(`api:           ListNodes (${n} nodes) median ${lat[5]} ms, max ${lat[9]} ms; WatchFleet snapshot ${Date.now() - t} ms`);
    client.close();
  } finally {
    for (const a of agents) a.close();
    await inv.stop();
    if (redis) {
      const r = new Redis(redis);
      const keys = await r.keys(`${prefix}*`);
      if (keys.length) await r.del(...keys);
      await r.quit();
    }
  }
}

run().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
