import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findRepoRoot, freePortRange, waitUntil } from '@llmgw/testing';

// `npm run release` (tools/scripts/release.cjs) makes a tarball that runs on its own: unpacked into an
// empty directory, with no sources, no node_modules but its own and no registry, `llmgw up` serves
// the demo model with the demo key (docs/deployment.md#release-tarball).
jest.setTimeout(400_000);

const root = findRepoRoot();
const work = mkdtempSync(join(tmpdir(), 'llmgw-release-'));
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

let up: ChildProcess | undefined;
afterAll(() => {
  if (up?.pid && up.exitCode === null) {
    try {
      process.kill(-up.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  rmSync(work, { recursive: true, force: true });
});

describe('npm run release', () => {
  const out = join(work, 'out');
  const install = join(work, 'opt');
  let top: string;
  let tarball: string;

  it('writes a versioned tarball and its checksum', () => {
    const r = spawnSync(process.execPath, [join(root, 'tools/scripts/release.cjs'), '--out', out], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, LLMGW_QUIET_BUILD: '1' },
    });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const name = `llmgw-${version}-${process.platform}-${process.arch}`;
    tarball = join(out, `${name}.tar.gz`);
    expect(r.stdout).toContain(`${name}.tar.gz`);
    expect(readFileSync(`${tarball}.sha256`, 'utf8')).toBe(`${sha256(tarball)}  ${name}.tar.gz\n`);
    mkdirSync(install);
    const x = spawnSync('tar', ['-xzf', tarball, '-C', install], { encoding: 'utf8' });
    expect(x.status).toBe(0);
    expect(readdirSync(install)).toEqual([name]);
    top = join(install, name);
  });

  it('holds the bundles, systemd units, example configs and runtime packages, and SHA256SUMS covers every file', () => {
    const sums = readFileSync(join(top, 'SHA256SUMS'), 'utf8').trim().split('\n');
    const listed = new Map(sums.map((l) => [l.slice(66), l.slice(0, 64)]));
    for (const [file, sum] of listed) expect([file, sha256(join(top, file))]).toEqual([file, sum]);
    const files = [...listed.keys()];
    for (const role of ['router', 'admission', 'accounting', 'inventory', 'placement-scheduler', 'node-agent', 'sim-engine', 'ctl', 'up'])
      expect(files).toContain(`dist/apps/${role}/main.js`);
    for (const unit of readdirSync(join(root, 'deploy/systemd'))) expect(files).toContain(`deploy/systemd/${unit}`);
    for (const ex of readdirSync(join(root, 'deploy/examples'))) expect(files).toContain(`deploy/examples/${ex}`);
    expect(files).toContain('deploy/loadbalancer/haproxy.cfg');
    // No sources, no dev tooling: bin/llmgw.cjs runs the bundles as they are.
    for (const absent of ['apps', 'libs', 'tools', 'node_modules/typescript', 'node_modules/jest', 'node_modules/tsx', 'node_modules/esbuild'])
      expect(existsSync(join(top, absent))).toBe(false);
    // What the tarball says it needs is what it holds.
    const pkg = JSON.parse(readFileSync(join(top, 'package.json'), 'utf8')) as { engines: { node: string }; dependencies: Record<string, string> };
    expect(pkg.engines.node).toMatch(/^>=/);
    for (const dep of Object.keys(pkg.dependencies)) expect([dep, existsSync(join(top, 'node_modules', dep, 'package.json'))]).toEqual([dep, true]);
  });

  it('runs `llmgw up` from the unpacked directory alone and answers /v1/models with the demo key', async () => {
    const [low, high] = await freePortRange(40);
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', npm_config_registry: 'http://127.0.0.1:9/', npm_config_offline: 'true' };
    delete env.NODE_PATH;
    delete env.LLMGW_FROM_SOURCE;
    let output = '';
    up = spawn(
      process.execPath,
      [
        'bin/llmgw.cjs',
        'up',
        '--port',
        '0',
        '--admin-port',
        '0',
        '--accounting-port',
        '0',
        '--admission-port',
        '0',
        '--control-port',
        '0',
        '--engine-ports',
        `${low}-${high}`,
        '--data-dir',
        join(work, 'data'),
      ],
      {
        cwd: top,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    up.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    up.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    await waitUntil(() => /demo API key sk-llmgw-\S+/.test(output) || up!.exitCode !== null, 'llmgw up from the release', {
      timeoutMs: 240_000,
      everyMs: 100,
    }).catch((e: Error) => {
      throw new Error(`${e.message}\n${output}`);
    });
    if (up.exitCode !== null) throw new Error(`llmgw up from the release exited ${up.exitCode}:\n${output}`);
    // Every role ran from the tarball's bundles: nothing was rebuilt, nothing came from a source tree.
    expect(output).not.toMatch(/rebuilt|apps\/[a-z-]+\/src/);
    const router = /router 1\s+(http:\/\/\S+)\/v1/.exec(output)![1];
    const key = /demo API key (sk-llmgw-\S+)/.exec(output)![1];
    const models = await fetch(`${router}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
    const body = (await models.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toContain('demo');
    expect((await fetch(`${router}/v1/models`)).status).toBe(401);
    const exited = new Promise<number | null>((r) => up!.once('exit', (code) => r(code)));
    process.kill(-up.pid!, 'SIGINT');
    expect(await exited).toBe(0);
  });

  it('lays out the container image from the tarball (every COPY of deploy/containers/Containerfile), whose entry point and health check work', async () => {
    // No container engine runs on the development machines: the image's filesystem is built here
    // by doing what the Containerfile's COPY lines do, from the unpacked tarball (its build context).
    const text = readFileSync(join(root, 'deploy/containers/Containerfile'), 'utf8').replace(/\\\n/g, ' ');
    const workdir = /^WORKDIR (\S+)$/m.exec(text)![1];
    const image = join(work, 'image');
    const copies = [...text.matchAll(/^COPY (?:--\S+ )*(.+)$/gm)].map((m) => m[1].trim().split(/\s+/));
    expect(copies.length).toBeGreaterThanOrEqual(5);
    for (const args of copies) {
      const dest = join(image, workdir, args.at(-1)!);
      for (const src of args.slice(0, -1)) {
        expect([src, existsSync(join(top, src))]).toEqual([src, true]);
        const to = args.at(-1)!.endsWith('/') ? join(dest, src.endsWith('/') ? '' : src.split('/').at(-1)!) : dest;
        mkdirSync(dirname(to), { recursive: true });
        // Hard links: the same files, without copying 200 MiB on a busy machine.
        expect(spawnSync('cp', ['-rl', join(top, src), to]).status).toBe(0);
      }
    }
    const app = join(image, workdir);
    const entry = join(app, 'deploy/containers/entrypoint.cjs');
    const version = spawnSync(process.execPath, [entry, '--version'], { cwd: app, encoding: 'utf8' });
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version);
    // The image's own launcher runs a role from the copied bundles (the config dir is empty here).
    const proc = spawn(process.execPath, [entry, 'sim-engine', '--port', '0', '--model', 'demo'], {
      cwd: app,
      env: { ...process.env, LLMGW_CONFIG_DIR: join(work, 'no-config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise((r) => proc.once('exit', r));
    let url = '';
    try {
      await waitUntil(
        () => !!(url = /"msg":"listening"/.test(out) ? (/"url":"(http:[^"]+)"/.exec(out)?.[1] ?? '') : '') || proc.exitCode !== null,
        'the sim-engine from the image layout',
        { timeoutMs: 150_000, everyMs: 50 },
      );
      expect({ url: !!url, out: url ? '' : out }).toEqual({ url: true, out: '' });
      const health = (u: string) =>
        spawnSync(process.execPath, [join(app, 'deploy/containers/healthcheck.cjs')], { env: { ...process.env, LLMGW_HEALTH_URL: u }, encoding: 'utf8' })
          .status;
      expect(health(`${url}/health`)).toBe(0);
      expect(health(`${url}/no-such-page`)).toBe(1);
      proc.kill('SIGTERM');
      await exited;
      expect(health(`${url}/health`)).toBe(1);
    } finally {
      proc.kill('SIGKILL');
    }
  });
});
