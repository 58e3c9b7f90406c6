import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parse } from 'yaml';
import {
  accountingConfigSchema,
  admissionServiceConfigSchema,
  ctlConfigSchema,
  inventoryConfigSchema,
  loadCatalogFile,
  loadConfigFile,
  placementSchedulerConfigSchema,
  routerConfigSchema,
} from '@llmgw/config';
import { findRepoRoot, routerUnitEnv, routerUnitFlags } from '@llmgw/testing';

// deploy/compose/compose.yaml cannot be run on the development machines (no container engine), so
// this checks what `compose up` would need: every file it mounts exists, every service's config
// validates with that service's own schema, every certificate a config names is made by certs.sh
// (run here with `llmgw ctl cert`), haproxy and Prometheus point at the services' real ports, and
// `docker-compose config` accepts the file when Debian's docker-compose is installed.
const root = findRepoRoot();
const composeDir = join(root, 'deploy/compose');
const composeFile = join(composeDir, 'compose.yaml');
const { argvFor } = require(join(root, 'deploy/containers/entrypoint.cjs')) as {
  argvFor: (args: string[], env?: NodeJS.ProcessEnv, exists?: (p: string) => boolean) => string[];
};

interface Service {
  image?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  deploy?: { replicas?: number };
  profiles?: string[];
}
const compose = parse(readFileSync(composeFile, 'utf8'), { merge: true }) as { services: Record<string, Service>; secrets: Record<string, { file: string }> };
const services = compose.services;
const llmgwServices = Object.entries(services).filter(([, s]) => s.image?.startsWith('llmgw:') && !s.entrypoint);
const CONFIG_DIR = '/etc/llmgw';
const onHost = (p: string) => join(composeDir, 'config', p.slice(CONFIG_DIR.length + 1));
const SCHEMAS: Record<string, Parameters<typeof loadConfigFile>[0]> = {
  router: routerConfigSchema,
  admission: admissionServiceConfigSchema,
  accounting: accountingConfigSchema,
  inventory: inventoryConfigSchema,
  'placement-scheduler': placementSchedulerConfigSchema,
};

/** The config file a compose service runs with, as the image's entry point picks it. */
function configOf(s: Service): { role: string; file: string } {
  const argv = argvFor(s.command ?? [], {}, (p) => existsSync(onHost(p)));
  const i = argv.indexOf('--config');
  if (i < 0) throw new Error(`${s.command?.join(' ')}: no config file`);
  return { role: argv[0], file: onHost(argv[i + 1]) };
}

/** Every /etc/llmgw/tls/… path a config names. */
const tlsPaths = (file: string) => [...readFileSync(file, 'utf8').matchAll(/\/etc\/llmgw\/tls\/[\w.-]+/g)].map((m) => m[0]);

describe('deploy/compose/compose.yaml', () => {
  it('has the scaled topology: Redis with AOF, PostgreSQL, accounting ×2, admission ×2, inventory, scheduler, 2 fake-GPU agents, 3 routers, haproxy, Prometheus, Grafana', () => {
    expect(Object.keys(services).sort()).toEqual(
      expect.arrayContaining([
        'accounting',
        'admission-1',
        'admission-2',
        'certs',
        'grafana',
        'haproxy',
        'inventory',
        'node-a',
        'node-b',
        'placement-scheduler',
        'postgres',
        'prometheus',
        'redis',
        'router-1',
        'router-2',
        'router-3',
      ]),
    );
    expect(services.accounting.deploy?.replicas).toBe(2);
    expect(services.redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    for (const r of ['router-1', 'router-2', 'router-3']) expect(services[r].command).toEqual(['router']);
  });

  it("starts the routers with the systemd unit's Node flags, in NODE_OPTIONS where Node accepts them, and its environment", () => {
    const unitFlags = routerUnitFlags(root);
    expect(unitFlags).toEqual(expect.arrayContaining([expect.stringMatching(/^--max-old-space-size=/), expect.stringMatching(/^--max-semi-space-size=/)]));
    for (const r of ['router-1', 'router-2', 'router-3']) expect(services[r].environment?.NODE_OPTIONS?.split(' ')).toEqual(unitFlags);
    // And the unit's Environment= lines (two malloc arenas), with the same values.
    const unitEnv = routerUnitEnv(root);
    expect(unitEnv).toEqual({ MALLOC_ARENA_MAX: '2' });
    for (const r of ['router-1', 'router-2', 'router-3']) expect(services[r].environment).toMatchObject(unitEnv);
    // Node refuses most V8 flags in NODE_OPTIONS; these two it takes, and applies.
    const heap = spawnSync(process.execPath, ['-e', "process.stdout.write(String(require('v8').getHeapStatistics().heap_size_limit))"], {
      env: { ...process.env, NODE_OPTIONS: services['router-1'].environment!.NODE_OPTIONS },
      encoding: 'utf8',
    });
    expect({ status: heap.status, stderr: heap.stderr }).toEqual({ status: 0, stderr: '' });
    const oldSpaceMiB = Number(/--max-old-space-size=(\d+)/.exec(unitFlags.join(' '))![1]);
    // The limit is the old space plus the young generation (three semi-spaces).
    expect(Number(heap.stdout) / 2 ** 20).toBeGreaterThanOrEqual(oldSpaceMiB);
    expect(Number(heap.stdout) / 2 ** 20).toBeLessThan(oldSpaceMiB + 256);
  });

  it('mounts only files that exist', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const v of s.volumes ?? []) {
        const src = v.split(':')[0];
        if (!src.startsWith('.')) continue; // a named volume
        expect([name, src, existsSync(resolve(composeDir, src))]).toEqual([name, src, true]);
      }
    }
    for (const [name, s] of Object.entries(compose.secrets)) expect([name, s.file]).toEqual([name, expect.stringMatching(/^\.\.\/\.\.\/secrets\/[a-z_]+$/)]);
  });

  it("gives every llmgw service a config that validates with that service's own schema", () => {
    const seen = new Set<string>();
    for (const [name, s] of llmgwServices) {
      const { role, file } = configOf(s);
      seen.add(role);
      expect([name, existsSync(file)]).toEqual([name, true]);
      if (SCHEMAS[role]) expect(() => loadConfigFile(SCHEMAS[role], file)).not.toThrow();
      if (role === 'node-agent') {
        // The agent parses its config (and discovers its fake GPUs) without a server to talk to.
        const r = spawnSync(process.execPath, [join(root, 'bin/llmgw.cjs'), 'node-agent', 'discover', '--config', file, '--json'], {
          encoding: 'utf8',
          env: { ...process.env, LLMGW_QUIET_BUILD: '1' },
        });
        expect({ name, status: r.status, stderr: r.stderr }).toEqual({ name, status: 0, stderr: '' });
        expect((JSON.parse(r.stdout) as { node: { gpus: unknown[] } }).node.gpus).toHaveLength(4);
      }
    }
    expect([...seen].sort()).toEqual(['accounting', 'admission', 'inventory', 'node-agent', 'placement-scheduler', 'router']);
    expect(loadCatalogFile(join(composeDir, 'config/catalog.yaml')).models.map((m) => m.name)).toEqual(['demo']);
    expect(() => loadConfigFile(ctlConfigSchema, join(composeDir, 'config/ctl.yaml'))).not.toThrow();
  });

  it('makes with `llmgw ctl cert` (certs.sh) every certificate, key and the engine key the configs name; a second run keeps them', () => {
    const out = mkdtempSync(join(tmpdir(), 'llmgw-compose-certs-'));
    try {
      const env = { ...process.env, LLMGW: `${process.execPath} ${join(root, 'bin/llmgw.cjs')}`, OUT: out, LLMGW_QUIET_BUILD: '1' };
      const r = spawnSync('sh', [join(composeDir, 'certs.sh')], { encoding: 'utf8', env });
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      const files = [...llmgwServices.map(([, s]) => configOf(s).file), join(composeDir, 'config/ctl.yaml')];
      const wanted = new Set(files.flatMap(tlsPaths));
      expect(wanted.size).toBeGreaterThanOrEqual(10);
      for (const p of wanted) expect([p, existsSync(join(out, basename(p)))]).toEqual([p, true]);
      const ca = readFileSync(join(out, 'ca.crt'), 'utf8');
      expect(spawnSync('sh', [join(composeDir, 'certs.sh')], { env }).status).toBe(0);
      expect(readFileSync(join(out, 'ca.crt'), 'utf8')).toBe(ca);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("points haproxy at the routers' ports and Prometheus at every service's admin port", () => {
    const cfg = readFileSync(join(root, 'deploy/loadbalancer/haproxy.cfg'), 'utf8')
      .split('\n')
      .filter((l) => !l.trim().startsWith('#'))
      .join('\n');
    // A router that comes back is ramped in (deploy/loadbalancer/README.md, "Slow start").
    expect(cfg).toMatch(/^\s*default-server .*\bslowstart \d+s\b/m);
    const haproxyVars = [...cfg.matchAll(/"\$\{(\w+)\}"/g)].map((m) => m[1]);
    expect(haproxyVars.length).toBe(7);
    const env = services.haproxy.environment ?? {};
    for (const v of haproxyVars) expect([v, env[v]]).toEqual([v, expect.any(String)]);
    const router = loadConfigFile(routerConfigSchema, join(composeDir, 'config/router.yaml'));
    expect(env.LLMGW_ROUTER_1).toBe(`router-1:${router.listen.split(':').pop()}`);
    expect(env.LLMGW_ROUTER_1_ADMIN_PORT).toBe(router.admin_listen.split(':').pop());

    const prom = parse(readFileSync(join(root, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ job_name: string; static_configs?: Array<{ targets: string[] }>; dns_sd_configs?: Array<{ names: string[]; port: number }> }>;
    };
    const adminPort = new Map<string, string>();
    for (const [name, s] of llmgwServices) {
      const text = readFileSync(configOf(s).file, 'utf8');
      adminPort.set(name, /admin_listen: "?[^:\s]*:(\d+)/.exec(text)![1]);
    }
    const targets = prom.scrape_configs
      .filter((j) => j.job_name !== 'engines')
      .flatMap((j) => [
        ...(j.static_configs ?? []).flatMap((c) => c.targets),
        ...(j.dns_sd_configs ?? []).flatMap((c) => c.names.map((n) => `${n}:${c.port}`)),
      ]);
    for (const t of targets) {
      const [host, port] = t.split(':');
      expect([t, adminPort.get(host)]).toEqual([t, port]);
    }
    // Every llmgw service is scraped.
    expect(new Set(targets.map((t) => t.split(':')[0]))).toEqual(new Set(llmgwServices.map(([n]) => n)));
  });

  const dockerCompose = spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0;
  (dockerCompose ? it : it.skip)('passes `docker-compose config` (Debian docker-compose)', () => {
    const r = spawnSync('docker-compose', ['-f', composeFile, 'config', '-q'], { encoding: 'utf8', cwd: composeDir });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  });
});

describe('deploy/containers: the image', () => {
  const file = readFileSync(join(root, 'deploy/containers/Containerfile'), 'utf8').replace(/\\\n/g, ' ');
  const instructions = file.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  const of = (kw: string) => instructions.filter((l) => l.startsWith(`${kw} `));

  it('is built on a slim Node ≥ 22 base, runs as a non-root user, has a health check and an exec-form entry point', () => {
    expect(of('FROM')).toHaveLength(1);
    expect(of('FROM')[0]).toMatch(/node:(2[2-9]|[3-9]\d)[\w.-]*-slim\b/);
    const user = of('USER').at(-1)!.split(/\s+/)[1];
    expect(user.split(':')[0]).not.toMatch(/^(0|root)$/);
    expect(of('HEALTHCHECK')[0]).toMatch(/CMD \["node", "\/opt\/llmgw\/deploy\/containers\/healthcheck\.cjs"\]/);
    expect(of('ENTRYPOINT')[0]).toMatch(/^ENTRYPOINT \[/);
    // Nothing fetched at build time: no package manager, no download.
    expect(instructions.join('\n')).not.toMatch(/\b(npm|apt-get|curl|wget)\b/);
  });

  it('picks /etc/llmgw/<role>.yaml and takes the database and Redis URLs from env or files, flags winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'llmgw-entry-'));
    try {
      const secret = join(dir, 'db');
      writeFileSync(secret, 'postgres://u:p@db/llmgw\n');
      const has = (p: string) => p === '/etc/llmgw/accounting.yaml' || p === '/etc/llmgw/agent.yaml';
      expect(argvFor(['accounting'], { LLMGW_DATABASE_URL_FILE: secret, LLMGW_REDIS_URL: 'redis://r:6379' }, has)).toEqual([
        'accounting',
        '--config',
        '/etc/llmgw/accounting.yaml',
        '--database-url',
        'postgres://u:p@db/llmgw',
        '--redis-url',
        'redis://r:6379',
      ]);
      expect(argvFor(['accounting', '--database-url', 'pglite:memory'], { LLMGW_DATABASE_URL: 'postgres://x' }, has)).toEqual([
        'accounting',
        '--config',
        '/etc/llmgw/accounting.yaml',
        '--database-url',
        'pglite:memory',
      ]);
      expect(argvFor(['node-agent', 'run'], {}, has)).toEqual(['node-agent', 'run', '--config', '/etc/llmgw/agent.yaml']);
      expect(argvFor(['router', '--config', '/x.yaml'], {}, () => true)).toEqual(['router', '--config', '/x.yaml']);
      expect(argvFor(['router'], {}, () => false)).toEqual(['router']);
      expect(argvFor(['--help'], {}, () => true)).toEqual(['--help']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
