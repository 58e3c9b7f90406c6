import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { createTestDatabase } from '@llmgw/db/testing';
import { findRepoRoot, freePort, freePortRange, spawnRole, startRedisServer, waitUntil, type SpawnedRole, type TestRedisServer } from '@llmgw/testing';

/**
 * docs/install.md, as written, on one machine: its certificate, file and
 * ctl commands run through bash as the guide spells them (without sudo and
 * chown; /etc/llmgw and the home directory moved into a temporary
 * directory), its configs with free ports, a private Redis and a fresh
 * database, and the GPU node as its "Rehearsing without a GPU" section says
 * (simulated GPUs, the catalog's engine sim). The control plane must place
 * the catalog's model, and the guide's request must be answered by it and
 * land in the ledger.
 */
const ROOT = findRepoRoot();
const GUIDE = readFileSync(join(ROOT, 'docs/install.md'), 'utf8');
const BIN = join(ROOT, 'bin', 'llmgw.cjs');

const shBlocks = [...GUIDE.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const yamlBlocks = new Map(
  [...GUIDE.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)].map((m) => {
    const first = m[1].split('\n')[0];
    const name = /simulated/.test(first) ? 'agent-sim.yaml' : /([a-z-]+\.yaml)/.exec(first)![1];
    return [name, m[1]] as const;
  }),
);
const block = (marker: string): string => {
  const b = shBlocks.find((s) => s.includes(marker));
  if (!b) throw new Error(`docs/install.md has no sh block with "${marker}"`);
  return b;
};

describe('docs/install.md on one machine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-install-'));
  const etc = join(dir, 'etc');
  const home = join(dir, 'home');
  const env = { ...process.env, HOME: home, USER: 'alice', LLMGW_CTL_CONFIG: undefined, LLMGW_QUIET_BUILD: '1' };
  const roles: SpawnedRole[] = [];
  let redis: TestRedisServer | undefined;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  const ports: Record<string, string> = {};

  /** Runs shell lines as the guide gives them, `llmgw` being this checkout, with the guide's ports and paths mapped. */
  const sh = (script: string, cwd = dir): Promise<string> => {
    let s = script
      .replace(/^sudo -u llmgw /gm, '')
      .replace(/\bsudo /g, '')
      .replace(/ -o llmgw -g llmgw/g, '')
      .replace(/\/etc\/llmgw/g, etc);
    for (const [from, to] of Object.entries(ports)) s = s.replace(new RegExp(`127\\.0\\.0\\.1:${from}\\b`, 'g'), `127.0.0.1:${to}`);
    const prelude = `set -e\nllmgw() { "${process.execPath}" "${BIN}" "$@"; }\n`;
    return new Promise((resolve, reject) =>
      execFile('bash', ['-c', prelude + s], { cwd, env, timeout: 120_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}\n--- script ---\n${s}`)) : resolve(stdout),
      ),
    );
  };
  const ctl = async (args: string): Promise<any> => JSON.parse(await sh(`llmgw ctl ${args} --json`));

  /** The guide's config with this run's addresses. */
  const config = (name: string, extra: Record<string, unknown> = {}): string => {
    let text = yamlBlocks
      .get(name)!
      .replace(/\/etc\/llmgw/g, etc)
      .replace(/\/var\/lib\/llmgw-agent/g, join(dir, 'agent'));
    text = text.replace(/redis:\/\/127\.0\.0\.1:6379/g, redis!.url).replace(/postgres:\/\/llmgw@\/llmgw\?host=\/var\/run\/postgresql/g, db!.url);
    text = text.replace(/10\.0\.0\.2/g, '127.0.0.1');
    for (const [from, to] of Object.entries(ports)) text = text.replace(new RegExp(`:${from}\\b`, 'g'), `:${to}`);
    const file = join(dir, name);
    writeFileSync(file, stringify({ ...parse(text), ...extra }));
    return file;
  };

  afterAll(async () => {
    for (const r of roles.reverse()) await r.stop();
    await db?.drop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('serves the catalog model through the router, with a key made by ctl, and records its usage', async () => {
    expect(
      ['accounting.yaml', 'admission.yaml', 'inventory.yaml', 'placement-scheduler.yaml', 'router.yaml', 'catalog.yaml', 'agent-sim.yaml'].filter(
        (f) => !yamlBlocks.has(f),
      ),
    ).toEqual([]);
    redis = await startRedisServer();
    db = await createTestDatabase('llmgw_install');
    for (const p of ['7070', '7072', '7073', '7074', '7443', '8080']) ports[p] = String(await freePort());
    const enginePorts = await freePortRange(50);
    mkdirSync(join(etc, 'tls'), { recursive: true });
    mkdirSync(home, { recursive: true });

    // Step 3: the CA, every certificate, the files in place, the engine key.
    await sh(block('llmgw ctl cert init-ca'));
    await sh(block('accounting.key admission.key'));
    await sh(block('openssl rand -hex 32'));
    // Step 6's files for the node, copied from the admin machine (here: the same one).
    copyFileSync(join(home, 'llmgw-ca', 'ca.crt'), join(home, 'llmgw-out', 'ca.crt'));
    await sh(block('gpu-a-01.key /etc/llmgw/tls/'), join(home, 'llmgw-out'));

    // Step 4: the configs; step 5: the control plane; step 6: the node (simulated, as the guide's rehearsal).
    const admin = { admin_listen: '127.0.0.1:0' };
    const catalog = parse(yamlBlocks.get('catalog.yaml')!) as { models: Array<{ profiles: Array<Record<string, unknown>> }> };
    for (const p of catalog.models[0].profiles) p.engine = 'sim';
    writeFileSync(join(etc, 'catalog.yaml'), stringify(catalog));
    roles.push(await spawnRole('accounting', ['--config', config('accounting.yaml', admin)], { env }));
    roles.push(await spawnRole('admission', ['--config', config('admission.yaml', admin)], { env }));
    roles.push(await spawnRole('inventory', ['--config', config('inventory.yaml', admin)], { env }));
    roles.push(await spawnRole('placement-scheduler', ['--config', config('placement-scheduler.yaml', { ...admin, port_range: enginePorts })], { env }));
    roles.push(await spawnRole('router', ['--config', config('router.yaml', admin)], { env }));
    const agentExtra = { ...admin, mgmt_addr: '127.0.0.1', port_range: enginePorts, stop_engines_on_exit: true };
    roles.push(await spawnRole('node-agent', ['run', '--config', config('agent-sim.yaml', agentExtra)], { env }));

    // Step 5's ctl setup, verbatim: the operator certificate and ctl.yaml in the home directory.
    await sh(block('cat > ~/.config/llmgw/ctl.yaml'));

    // Step 7.
    const model = catalog.models[0] as unknown as { name: string };
    let replica = '';
    await waitUntil(
      async () => {
        const list = (await ctl('replicas')) as Array<{ replicaId: string; model: string; state: string }>;
        replica = list.find((x) => x.model === model.name && x.state === 'REPLICA_STATE_READY')?.replicaId ?? '';
        return replica !== '';
      },
      `a ready replica of ${model.name} in llmgw ctl replicas`,
      { timeoutMs: 120_000, everyMs: 1000 },
    );
    const nodes = await ctl('nodes');
    expect(JSON.stringify(nodes)).toContain('gpu-a-01');

    const tenant = block('llmgw ctl key create');
    await sh(
      tenant
        .split('\n')
        .filter((l) => /^llmgw ctl (org|team|project) create/.test(l))
        .join('\n'),
    );
    const keyLine = tenant
      .split('\n')
      .find((l) => l.startsWith('llmgw ctl key create'))!
      .replace(/#.*$/, '')
      .trim();
    const key = JSON.parse(await sh(`${keyLine} --json`)) as { secret: string };
    expect(key.secret).toMatch(/^sk-llmgw-/);

    const body = /-d '([^']+)'/.exec(tenant)![1];
    expect(JSON.parse(body).model).toBe(model.name);
    const res = await fetch(`http://127.0.0.1:${ports['8080']}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.secret}` },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-llmgw-replica')).toBe(replica);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content.length).toBeGreaterThan(0);

    await waitUntil(
      async () => ((await ctl('usage')) as Array<{ requests: number | string }>).some((r) => Number(r.requests) === 1),
      'the request in llmgw ctl usage',
      {
        timeoutMs: 30_000,
        everyMs: 500,
      },
    );
  }, 600_000);
});
