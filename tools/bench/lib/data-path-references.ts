/**
 * The references the data-path bench (../data-path.ts) measures the router against in the same
 * run: nginx as a plain keep-alive reverse proxy (written in C), and bare-proxy.cjs (Node's HTTP
 * server and undici alone, the floor for a proxy written in Node).
 */
import { freePort } from '@llmgw/testing';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** nginx (Debian's) as a plain keep-alive reverse proxy over `upstreams`, one worker like the one router process. */
export async function startNginx(dir: string, upstreams: string[]): Promise<{ url: string; proc: ChildProcess; workerPid?: number }> {
  const have = spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0;
  if (!have) throw new Error('nginx is not installed: apt-get install -y nginx-light (the bench needs it as the reference proxy)');
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
error_log ${dir}/nginx-error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 8192; }
http {
  access_log ${dir}/nginx-access.log;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream engines { ${upstreams.map((u) => `server ${new URL(u).host};`).join(' ')} keepalive 512; keepalive_timeout 60s; }
  server {
    listen 127.0.0.1:${port};
    keepalive_requests 100000;
    location / { proxy_pass http://engines; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; proxy_read_timeout 600s; }
  }
}
`,
  );
  const proc = spawn('nginx', ['-c', conf, '-p', dir, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${url}/v1/models`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) {
      // The one worker serves; the master only watches it. Its CPU is the worker's.
      const children = readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
      return { url, proc, workerPid: children.length === 1 ? Number(children[0]) : undefined };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('nginx did not answer within 10 s');
}

/**
 * --gc-stats DIR: the `--require` that preloads lib/gc-stats.cjs, which writes the process's scavenges
 * per 5 s window to DIR when it exits ('' without DIR). The bare proxy gets it from startBareProxy.
 */
export function gcStatsRequire(dir: string | undefined): string {
  process.env.LLMGW_GC_STATS_DIR = dir ?? '';
  return dir ? `--require ${join(__dirname, 'gc-stats.cjs')}` : '';
}

/** lib/bare-proxy.cjs over `upstreams`: Node's HTTP server and undici and nothing else, the floor for a proxy in Node (with `nodeArgs` and `env`, e.g. the router unit's). */
export async function startBareProxy(
  upstreams: string[],
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<{ url: string; proc: ChildProcess }> {
  const gcStats = process.env.LLMGW_GC_STATS_DIR ? ['--require', join(__dirname, 'gc-stats.cjs')] : [];
  const proc = spawn(process.execPath, [...nodeArgs, ...gcStats, join(__dirname, 'bare-proxy.cjs'), '0', ...upstreams], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`bare proxy exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, proc };
}

/** The bare proxy, and one more for each figure of `spinUs` that burns that many µs of CPU per request (BARE_PROXY_SPIN_US). */
export function startBareProxies(upstreams: string[], spinUs: number[]): Promise<Array<{ name: string; url: string; proc: ChildProcess }>> {
  return Promise.all(
    [0, ...spinUs].map(async (us) => ({
      name: us ? `node (bare + ${us} µs)` : 'node (bare proxy)',
      ...(await startBareProxy(upstreams, [], us ? { BARE_PROXY_SPIN_US: String(us) } : {})),
    })),
  );
}
