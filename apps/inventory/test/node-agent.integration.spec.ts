/**
 * Issue 10's integration test with real processes: a real `llmgw inventory`
 * (mTLS fleet port) and real `llmgw node-agent run --fake-gpus` processes
 * launching real sim-engines. Register and heartbeat; a shard started
 * through InventoryService becomes READY; SIGSTOP of the agent → Unreachable
 * → Lost, SIGCONT → Ready; inventory restarted while the shard runs → its
 * state comes back from Register alone; a certificate for node B claiming
 * node X is refused.
 */
import { initCa, issueCert } from '@llmgw/grpc';
import { WatchedFleet, InventoryClient } from '@llmgw/inventory-rpc';
import { freePort, spawnRole, type SpawnedRole, waitUntil } from '@llmgw/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '../../..');
const LLMGW = join(ROOT, 'bin/llmgw.cjs');

describe('inventory with real node-agents on fake GPUs running real sim-engines', () => {
  let dir: string;
  let ca: Awaited<ReturnType<typeof initCa>>;
  let srv: Awaited<ReturnType<typeof issueCert>>;
  let agentPort: number;
  let inv: SpawnedRole | undefined;
  let client: InventoryClient | undefined;
  const agents: Array<{ p: ChildProcess; out: string[] }> = [];
  const pgids = new Set<number>();

  async function startInventory(): Promise<void> {
    inv = await spawnRole(
      'inventory',
      [
        '--agent-cert',
        srv.certPath,
        '--agent-key',
        srv.keyPath,
        '--agent-ca',
        ca.certPath,
        '--agent-listen',
        `127.0.0.1:${agentPort}`,
        '--port',
        '0',
        '--admin-port',
        '0',
        '--lost-after',
        '3s',
        '--log-level',
        'info',
      ],
      { timeoutMs: 90_000 },
    );
    client?.close();
    client = new InventoryClient({ address: inv.urls.grpc.replace('http://', '') });
  }

  function startAgent(name: string, nodeId: string, certName: string) {
    const cfg = {
      node_id: nodeId,
      server: `127.0.0.1:${agentPort}`,
      mgmt_addr: '127.0.0.1',
      engine_bind_host: '127.0.0.1',
      tls: { ca: ca.certPath, cert: join(dir, `${certName}.crt`), key: join(dir, `${certName}.key`) },
      fake_gpus: '2xh100-80g,fabric=ib-a',
      work_dir: join(dir, `work-${name}`),
      engines: { sim: {} },
      heartbeat_interval: '300ms',
      stats_interval: '500ms',
      health_interval: '100ms',
      stop_grace: '5s',
      log_level: 'info',
      admin_listen: '127.0.0.1:0',
    };
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, stringify(cfg));
    const p = spawn(process.execPath, [LLMGW, 'node-agent', 'run', '--config', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    });
    const out: string[] = [];
    p.stdout!.on('data', (b) => out.push(String(b)));
    p.stderr!.on('data', (b) => out.push(String(b)));
    const a = { p, out };
    agents.push(a);
    return a;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'llmgw-inv-agent-'));
    ca = await initCa({ dir });
    srv = await issueCert({ ca, dir, name: 'inventory', commonName: 'inventory', sans: ['127.0.0.1', 'localhost'], usage: 'server' });
    await issueCert({ ca, dir, name: 'node-a', commonName: 'node-a', usage: 'client', role: 'node' });
    await issueCert({ ca, dir, name: 'node-b', commonName: 'node-b', usage: 'client', role: 'node' });
    agentPort = await freePort();
    await startInventory();
  }, 120_000);

  afterAll(async () => {
    client?.close();
    for (const a of agents) {
      if (a.p.signalCode === 'SIGSTOP') a.p.kill('SIGCONT');
      if (a.p.exitCode === null && a.p.signalCode === null) a.p.kill('SIGKILL');
    }
    for (const g of pgids) {
      try {
        process.kill(-g, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await inv?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers, runs a sim-engine shard, goes Unreachable → Lost on SIGSTOP and Ready on SIGCONT, survives an inventory restart, refuses a spoofed CN', async () => {
    const a = startAgent('a', 'node-a', 'node-a');
    const view = new WatchedFleet();
    const states: string[] = [];
    const onEvent = (e: Parameters<WatchedFleet['apply']>[0]) => {
      view.apply(e);
      const n = view.nodes.get('node-a');
      if (n && states[states.length - 1] !== n.connectivity) states.push(n.connectivity);
    };
    let watch = client!.watchFleet({ onEvent });
    try {
      await waitUntil(() => view.nodes.get('node-a')?.connectivity === 'CONNECTIVITY_CONNECTED', 'node-a registered', {
        timeoutMs: 120_000,
        everyMs: 50,
        seen: () => a.out.join('').slice(-2000),
      });
      const n = view.nodes.get('node-a')!;
      expect(n.peerCn).toBe('node-a');
      expect(n.info!.gpus.map((g) => g.gpuClass)).toEqual(['h100-80g', 'h100-80g']);
      expect(n.info!.fabrics.map((f) => f.fabric)).toEqual(['ib-a']);

      const port = await freePort();
      const ack = await client!.sendShardCommand(
        {
          nodeId: 'node-a',
          start: {
            commandId: 'it-1',
            spec: {
              shardId: 'sim1-r0',
              replicaId: 'sim1',
              model: 'sim-llama',
              profile: 'default',
              engine: 'sim',
              rank: 0,
              nnodes: 1,
              gpuIndices: [0],
              httpPort: port,
              servedModelName: 'sim-llama',
              args: ['--decode-tps', '0', '--prefill-tps', '0'],
              startupTimeoutMs: 120_000,
            },
          },
        },
        { deadlineMs: 30_000 },
      );
      expect(ack.ack).toMatchObject({ refId: 'it-1', result: 'ACK_RESULT_ACCEPTED' });
      await waitUntil(() => view.nodes.get('node-a')?.shards.find((s) => s.shardId === 'sim1-r0')?.state === 'SHARD_STATE_READY', 'sim1 READY', {
        timeoutMs: 120_000,
        everyMs: 50,
        seen: () => view.nodes.get('node-a')?.shards,
      });
      const shard = view.nodes.get('node-a')!.shards.find((s) => s.shardId === 'sim1-r0')!;
      if (shard.pgid) pgids.add(shard.pgid);
      const health = await fetch(`${shard.endpoint}/health`);
      expect(health.status).toBe(200);

      // The transitions SIGSTOP causes, from a Connected node: a loaded machine's stall while the engine started
      // (an agent or inventory event loop held past 3 heartbeats) may have made an Unreachable blip before it.
      await waitUntil(() => view.nodes.get('node-a')?.connectivity === 'CONNECTIVITY_CONNECTED', 'node-a connected before SIGSTOP', {
        timeoutMs: 60_000,
        everyMs: 50,
        seen: () => states,
      });
      const fromStop = states.length - 1;
      a.p.kill('SIGSTOP');
      await waitUntil(() => view.nodes.get('node-a')?.connectivity === 'CONNECTIVITY_LOST', 'node-a Lost', {
        timeoutMs: 60_000,
        everyMs: 50,
        seen: () => states,
      });
      a.p.kill('SIGCONT');
      await waitUntil(() => view.nodes.get('node-a')?.connectivity === 'CONNECTIVITY_CONNECTED', 'node-a Ready again', {
        timeoutMs: 60_000,
        everyMs: 50,
        seen: () => states,
      });
      expect(states.slice(fromStop)).toEqual(['CONNECTIVITY_CONNECTED', 'CONNECTIVITY_UNREACHABLE', 'CONNECTIVITY_LOST', 'CONNECTIVITY_CONNECTED']);

      // Restart inventory while the engine runs: nothing is stored, so what it knows must come from Register.
      watch.close();
      await inv!.stop('SIGKILL');
      await startInventory();
      const fresh = new WatchedFleet();
      watch = client!.watchFleet({ onEvent: (e) => fresh.apply(e) });
      await waitUntil(() => fresh.nodes.get('node-a')?.connectivity === 'CONNECTIVITY_CONNECTED', 'node-a re-registered with the new inventory', {
        timeoutMs: 120_000,
        everyMs: 50,
        seen: () => a.out.join('').slice(-2000),
      });
      const back = fresh.nodes.get('node-a')!.shards.find((s) => s.shardId === 'sim1-r0');
      expect(back).toMatchObject({ state: 'SHARD_STATE_READY', endpoint: shard.endpoint, spec: { model: 'sim-llama', gpuIndices: [0] } });
      expect((await fetch(`${shard.endpoint}/health`)).status).toBe(200);

      // node-b's certificate claiming node-x.
      const spoof = startAgent('x', 'node-x', 'node-b');
      await waitUntil(
        async () =>
          /llmgw_inventory_register_refused_total\{[^}]*reason="cn_mismatch"[^}]*\} [1-9]/.test(await (await fetch(`${inv!.urls.admin}/metrics`)).text()),
        'the refusal counted',
        { timeoutMs: 90_000, everyMs: 50, seen: () => spoof.out.join('').slice(-1500) },
      );
      expect((await client!.listNodes()).nodes.map((x) => x.info!.nodeId)).toEqual(['node-a']);
      await waitUntil(
        async () => inv!.output().some((l) => l.includes('agent stream refused') && l.includes('node-x') && l.includes('node-b')),
        'the refusal logged',
        { timeoutMs: 30_000, everyMs: 50, seen: () => inv!.output().slice(-20).join('\n') },
      );

      const stop = await client!.sendShardCommand({ nodeId: 'node-a', stop: { commandId: 'it-2', shardId: 'sim1-r0', graceMs: 2000 } }, { deadlineMs: 30_000 });
      expect(stop.ack?.result).toBe('ACK_RESULT_ACCEPTED');
      await waitUntil(() => fresh.nodes.get('node-a')?.shards.find((s) => s.shardId === 'sim1-r0')?.state === 'SHARD_STATE_STOPPED', 'sim1 STOPPED', {
        timeoutMs: 60_000,
        everyMs: 50,
      });
    } finally {
      watch.close();
    }
  });
});
