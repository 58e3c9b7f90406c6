#!/usr/bin/env node
// The scaled topology of deploy/compose/compose.yaml as plain processes on this
// machine, in one command (docs/deployment.md#the-scaled-topology):
//
//   PostgreSQL and Redis: the machine's own, with a fresh database and key prefix
//   accounting ×2   admission leader + standby   inventory   placement-scheduler
//   2 node-agents on fake GPUs (their shards are sim-engine processes)
//   3 routers behind haproxy (deploy/loadbalancer/haproxy.cfg)
//   every gRPC link over mTLS, with certificates made by `llmgw ctl cert`
//   an org, team, project and API key made by `llmgw ctl` over mTLS
//   with --prometheus: Prometheus scraping every service, with deploy/prometheus's rules
//
//   node tools/scripts/topology.cjs [--dir D] [--redis-url U] [--pg-url U] [--prometheus] [--keep]
//
// Once everything serves it prints one JSON line, {"msg":"topology up", …}, with
// the balancer's URL, the API key and every process (name, pid, URLs, log file),
// and runs until SIGINT/SIGTERM; then it stops every process and, unless --keep,
// drops the database and the Redis keys it made. Logs go to <dir>/logs.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const root = path.resolve(__dirname, '../..');
const LLMGW = path.join(root, 'bin', 'llmgw.cjs');
const HAPROXY_CFG = path.join(root, 'deploy', 'loadbalancer', 'haproxy.cfg');
const PROM_RULES = path.join(root, 'deploy', 'prometheus', 'alerts.yml');
const NODES = [
  { id: 'gpu-a', fakeGpus: '4xh100-80g,fabric=fab-a' },
  { id: 'gpu-b', fakeGpus: '4xh100-80g,fabric=fab-b' },
];
const MODEL = 'demo';

function parse(argv) {
  const o = {
    dir: undefined,
    redisUrl: 'redis://127.0.0.1:6379',
    pgUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
    prometheus: false,
    keep: false,
    logLevel: 'info',
    routers: 3,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (argv[i + 1] === undefined) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--dir') o.dir = path.resolve(next());
    else if (a === '--redis-url') o.redisUrl = next();
    else if (a === '--pg-url') o.pgUrl = next();
    else if (a === '--prometheus') o.prometheus = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--log-level') o.logLevel = next();
    else if (a === '--help' || a === '-h') o.help = true;
    else throw new Error(`unknown argument "${a}"`);
  }
  return o;
}

const HELP = `usage: node tools/scripts/topology.cjs [options]
  the scaled topology as processes: accounting ×2, admission leader + standby, inventory,
  placement-scheduler, 2 fake-GPU node-agents, 3 routers behind haproxy; mTLS everywhere

  --dir <dir>         where certificates, configs, logs and agent state go (default: a new temp dir)
  --redis-url <url>   Redis to use, under a fresh key prefix (default redis://127.0.0.1:6379)
  --pg-url <url>      PostgreSQL to create a fresh database in (default postgres://postgres@127.0.0.1:5432/postgres)
  --prometheus        also run Prometheus (Debian's prometheus) scraping every service
  --keep              leave the database and Redis keys when stopping
  --log-level <l>     the services' log level (default info)
`;

/** A TCP port free on 127.0.0.1 now (for listeners other processes must know in advance). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** `size` consecutive ports free on 127.0.0.1, for the engines the scheduler places. */
async function freeRange(size) {
  const bindable = (p) =>
    new Promise((r) => {
      const s = net.createServer();
      s.once('error', () => r(false));
      s.listen(p, '127.0.0.1', () => s.close(() => r(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const low = 21000 + Math.floor(Math.random() * (11000 - size));
    let ok = true;
    for (let p = low; p < low + size && ok; p++) ok = await bindable(p);
    if (ok) return [low, low + size - 1];
  }
  throw new Error(`no ${size} consecutive free ports`);
}

/** Runs `llmgw ctl …` to completion; returns stdout, throws with stderr on failure. */
function ctl(args) {
  const r = spawnSync(process.execPath, [LLMGW, 'ctl', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, LLMGW_QUIET_BUILD: '1' } });
  if (r.status !== 0) throw new Error(`llmgw ctl ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** The CA and every role's certificate, made with `llmgw ctl cert` (docs/security.md). */
function makeCerts(tls) {
  const sans = ['--san', '127.0.0.1', '--san', 'localhost'];
  const d = ['--ca-dir', tls, '--dir', tls, '--json'];
  ctl(['cert', 'init-ca', '--dir', tls, '--cn', 'llmgw-topology-ca', '--json']);
  for (const role of ['accounting', 'admission', 'inventory']) ctl(['cert', 'issue-server', role, '--role', role, ...sans, ...d]);
  ctl(['cert', 'issue-server', 'placement-scheduler', '--role', 'placement-scheduler', '--client', ...sans, ...d]);
  ctl(['cert', 'issue-client', 'router', '--role', 'router', ...d]);
  ctl(['cert', 'issue-client', 'operator', '--role', 'operator', ...d]);
  for (const n of NODES) ctl(['cert', 'issue-node', n.id, ...d]);
  const f = (name) => ({ cert: path.join(tls, `${name}.crt`), key: path.join(tls, `${name}.key`) });
  const ca = path.join(tls, 'ca.crt');
  return { ca, server: (name) => ({ ...f(name), client_ca: ca }), client: (name) => ({ ca, ...f(name) }) };
}

/** Processes this script started, for the stop. */
const procs = [];

/**
 * Starts `llmgw <args>` with its output in <dir>/logs/<name>.log; resolves with its URLs once it
 * logs its "listening" line (every role does: libs/testing/src/process.ts), rejects if it exits first.
 */
function start(dir, name, role, args, timeoutMs = 180_000) {
  const logFile = path.join(dir, 'logs', `${name}.log`);
  const log = fs.createWriteStream(logFile);
  const child = spawn(process.execPath, [LLMGW, role, ...args], {
    cwd: root,
    env: { ...process.env, LLMGW_QUIET_BUILD: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p = { name, role, pid: child.pid, child, log: logFile, url: undefined, urls: {} };
  procs.push(p);
  child.stderr.pipe(log, { end: false });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no "listening" line within ${timeoutMs} ms (see ${logFile})`)), timeoutMs);
    const rl = readline.createInterface({ input: child.stdout });
    let ready = false;
    rl.on('line', (line) => {
      log.write(line + '\n');
      if (ready || !line.startsWith('{')) return;
      let rec;
      try {
        rec = JSON.parse(line);
      } catch {
        return;
      }
      if (rec.msg !== 'listening') return;
      ready = true;
      clearTimeout(timer);
      p.url = rec.url;
      p.urls = rec.urls ?? {};
      resolve(p);
    });
    child.once('exit', (code, signal) => {
      p.exited = signal ?? code;
      if (!ready) {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${signal ?? code}) before listening; see ${logFile}:\n${tail(logFile)}`));
      }
    });
  });
}

function tail(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}

function writeConfig(dir, name, cfg) {
  const file = path.join(dir, 'config', `${name}.yaml`);
  // JSON is YAML: the services read it as they read deploy/examples.
  fs.writeFileSync(file, JSON.stringify(cfg, null, 2) + '\n');
  return file;
}

const hostPort = (url) => new URL(url).host;
const until = async (what, cond, ms) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/** Throws unless `cmd` runs (haproxy, prometheus: Debian packages, installed by .ci/run). */
function need(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  if (r.error || r.status !== 0) throw new Error(`${cmd} is not installed (apt-get install -y ${cmd})`);
}

async function up(o) {
  need('haproxy', ['-v']);
  if (o.prometheus) need('prometheus', ['--version']);
  const id = crypto.randomBytes(4).toString('hex');
  const dir = o.dir;
  for (const d of ['config', 'logs', 'tls', 'agents']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  const prefix = `llmgw:topo:${id}:`;
  const dbName = `llmgw_topo_${id}`;
  const { Client } = require('pg');
  const admin = new Client({ connectionString: o.pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const dbUrl = new URL(o.pgUrl);
  dbUrl.pathname = `/${dbName}`;
  const state = { dir, prefix, database: dbName, databaseUrl: dbUrl.toString(), pgUrl: o.pgUrl, redisUrl: o.redisUrl };
  fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify(state) + '\n');

  const tls = makeCerts(path.join(dir, 'tls'));
  const engineKey = path.join(dir, 'engine.key');
  fs.writeFileSync(engineKey, crypto.randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
  const level = o.logLevel;
  const redis = o.redisUrl;
  const endpointSource = { kind: 'redis', redis_url: redis, key_prefix: prefix };
  const [acct1Port, acct2Port, adm1Port, adm2Port, invPort, agentPort, ctlPort] = await Promise.all(Array.from({ length: 7 }, freePort));
  const enginePorts = await freeRange(100);

  // Accounting: two instances on one database and one usage stream; the first makes the schema.
  const accounting = [];
  for (const [i, port] of [acct1Port, acct2Port].entries()) {
    const cfg = writeConfig(dir, `accounting-${i + 1}`, {
      listen: `127.0.0.1:${port}`,
      admin_listen: '127.0.0.1:0',
      log_level: level,
      database_url: state.databaseUrl,
      redis_url: redis,
      key_prefix: prefix,
      tls: tls.server('accounting'),
      // A killed instance's unacknowledged usage records are claimed by the other after 2 s.
      ingest: { consumer: `accounting-${i + 1}`, claim_idle: '2s', batch_interval: '200ms' },
    });
    accounting.push(await start(dir, `accounting-${i + 1}`, 'accounting', ['--config', cfg]));
  }
  const operator = [
    '--accounting',
    `127.0.0.1:${acct1Port}`,
    '--tls-ca',
    tls.ca,
    '--tls-cert',
    tls.client('operator').cert,
    '--tls-key',
    tls.client('operator').key,
    '--json',
  ];
  ctl(['org', 'create', 'topology', ...operator]);
  ctl(['team', 'create', 'platform', '--org', 'topology', ...operator]);
  ctl(['project', 'create', 'load', '--team', 'platform', ...operator]);
  const key = JSON.parse(ctl(['key', 'create', '--project', 'load', '--name', 'topology', ...operator])).secret;

  const inv = await start(dir, 'inventory', 'inventory', [
    '--config',
    writeConfig(dir, 'inventory', {
      listen: `127.0.0.1:${invPort}`,
      agent_listen: `127.0.0.1:${agentPort}`,
      admin_listen: '127.0.0.1:0',
      log_level: level,
      lost_after: '15s',
      tls: tls.server('inventory'),
      agent_tls: tls.server('inventory'),
      redis: { url: redis, key_prefix: prefix },
    }),
  ]);
  const agents = await Promise.all(
    NODES.map((n) =>
      start(dir, `node-agent-${n.id}`, 'node-agent', [
        'run',
        '--config',
        writeConfig(dir, `node-agent-${n.id}`, {
          node_id: n.id,
          server: `127.0.0.1:${agentPort}`,
          mgmt_addr: '127.0.0.1',
          fake_gpus: n.fakeGpus,
          work_dir: path.join(dir, 'agents', n.id),
          engines: { sim: {} },
          port_range: enginePorts,
          stop_engines_on_exit: true,
          stop_grace: '2s',
          heartbeat_interval: '2s',
          health_interval: '250ms',
          admin_listen: '127.0.0.1:0',
          log_level: level,
          tls: tls.client(`${n.id}`),
        }),
      ]),
    ),
  );
  const profile = {
    name: 'sim-1gpu',
    gpu_class: 'h100-80g',
    engine: 'sim',
    max_num_seqs: 256,
    args: ['--decode-tps', '200', '--tokenizer', 'llama3'],
    startup_timeout: '2m',
  };
  const catalog = path.join(dir, 'config', 'catalog.yaml');
  fs.writeFileSync(
    catalog,
    JSON.stringify({ models: [{ name: MODEL, source: `sim/${MODEL}`, scaling: { min: 2, max: 2 }, profiles: [profile] }] }, null, 2) + '\n',
  );
  const sched = await start(dir, 'placement-scheduler', 'placement-scheduler', [
    '--config',
    writeConfig(dir, 'placement-scheduler', {
      catalog,
      engine_key_file: engineKey,
      listen: `127.0.0.1:${ctlPort}`,
      admin_listen: '127.0.0.1:0',
      log_level: level,
      tls: tls.server('placement-scheduler'),
      inventory: { address: `127.0.0.1:${invPort}`, tls: tls.client('placement-scheduler') },
      accounting: { address: `127.0.0.1:${acct1Port}`, tls: tls.client('placement-scheduler') },
      redis: { url: redis, key_prefix: prefix },
      reconcile_interval: '2s',
      port_range: enginePorts,
    }),
  ]);
  // Admission: the first to take the lock leads; the other stands by (its /readyz answers 503).
  const admission = [];
  for (const [i, port] of [adm1Port, adm2Port].entries()) {
    admission.push(
      await start(dir, `admission-${i + 1}`, 'admission', [
        '--config',
        writeConfig(dir, `admission-${i + 1}`, {
          listen: `127.0.0.1:${port}`,
          admin_listen: '127.0.0.1:0',
          log_level: level,
          instance_id: `admission-${i + 1}`,
          tls: tls.server('admission'),
          leader: { redis_url: redis, key_prefix: prefix, lock_ttl: '3s' },
          scrape_interval: '500ms',
          endpoints: [],
          endpoint_source: endpointSource,
        }),
      ]),
    );
  }
  // Routers: two ask the first accounting instance, one the second; every router knows both admission instances.
  const routers = await Promise.all(
    Array.from({ length: o.routers }, (_, i) =>
      start(dir, `router-${i + 1}`, 'router', [
        '--config',
        writeConfig(dir, `router-${i + 1}`, {
          listen: '127.0.0.1:0',
          admin_listen: '127.0.0.1:0',
          log_level: level,
          scrape_interval: '500ms',
          drain_delay: '8s',
          shutdown_grace: '10s',
          endpoints: [],
          endpoint_source: endpointSource,
          engine_key_file: engineKey,
          prefix: { kv_events: { enabled: true } },
          admission: { mode: 'remote', address: `127.0.0.1:${adm1Port},127.0.0.1:${adm2Port}`, tls: tls.client('router') },
          tenancy: {
            enabled: true,
            accounting_address: `127.0.0.1:${i === o.routers - 1 ? acct2Port : acct1Port}`,
            accounting_tls: tls.client('router'),
            redis_url: redis,
            key_prefix: prefix,
          },
        }),
      ]),
    ),
  );

  // The demo model serves through every router (its second replica may still be loading).
  const modelsFrom = async (url) => {
    const r = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'ready?' }], max_tokens: 2 }),
    }).catch(() => undefined);
    if (r) await r.text();
    return r?.status === 200;
  };
  for (const r of routers) await until(`${r.name} to serve ${MODEL}`, () => modelsFrom(r.url), 180_000);

  const lbPort = await freePort();
  const lbEnv = { ...process.env, LLMGW_LB_BIND: `127.0.0.1:${lbPort}` };
  routers.forEach((r, i) => {
    lbEnv[`LLMGW_ROUTER_${i + 1}`] = hostPort(r.url);
    lbEnv[`LLMGW_ROUTER_${i + 1}_ADMIN_PORT`] = new URL(r.urls.admin).port;
  });
  const lbLog = path.join(dir, 'logs', 'haproxy.log');
  const lb = spawn('haproxy', ['-f', HAPROXY_CFG, '-db'], { env: lbEnv, stdio: ['ignore', fs.openSync(lbLog, 'w'), fs.openSync(lbLog, 'a')] });
  lb.once('error', (e) => console.error(`haproxy: ${e.message} (apt-get install -y haproxy)`));
  procs.push({ name: 'haproxy', role: 'haproxy', pid: lb.pid, child: lb, log: lbLog, url: `http://127.0.0.1:${lbPort}`, urls: {} });
  const lbUrl = `http://127.0.0.1:${lbPort}`;
  const seen = new Set();
  await until(
    'every router in the balancer',
    async () => {
      const r = await fetch(`${lbUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } }).catch(() => undefined);
      if (r?.status === 200 && r.headers.get('x-llmgw-router')) seen.add(r.headers.get('x-llmgw-router'));
      return seen.size === routers.length;
    },
    60_000,
  );

  let prometheus;
  if (o.prometheus) prometheus = await startPrometheus(dir, [...accounting, inv, ...agents, sched, ...admission, ...routers], key);
  return {
    msg: 'topology up',
    dir,
    lb: lbUrl,
    key,
    model: MODEL,
    database: dbName,
    database_url: state.databaseUrl,
    redis_url: redis,
    key_prefix: prefix,
    tls: path.join(dir, 'tls'),
    prometheus,
    processes: procs.map((p) => ({ name: p.name, role: p.role, pid: p.pid, url: p.url, admin: p.urls.admin, log: p.log })),
  };
}

/** Prometheus (Debian's package) scraping every service's admin port with the alert rules; its URL. */
async function startPrometheus(dir, services) {
  const port = await freePort();
  const jobs = new Map();
  for (const s of services) {
    if (!s.urls.admin) continue;
    const targets = jobs.get(s.role) ?? [];
    targets.push({ target: hostPort(s.urls.admin), instance: s.name });
    jobs.set(s.role, targets);
  }
  const cfg = {
    global: { scrape_interval: '2s', evaluation_interval: '2s' },
    rule_files: [PROM_RULES],
    scrape_configs: [...jobs].map(([role, ts]) => ({
      job_name: role,
      static_configs: ts.map((t) => ({ targets: [t.target], labels: { instance: t.instance } })),
    })),
  };
  // The engines the scheduler placed: their vLLM-style /metrics (TTFT and TPOT on the engine side).
  cfg.scrape_configs.push({ job_name: 'engines', file_sd_configs: [{ files: [path.join(dir, 'config', 'engines.json')], refresh_interval: '5s' }] });
  fs.writeFileSync(path.join(dir, 'config', 'engines.json'), JSON.stringify(engineTargets(dir)) + '\n');
  const file = path.join(dir, 'config', 'prometheus.yml');
  fs.writeFileSync(file, JSON.stringify(cfg, null, 2) + '\n');
  const log = path.join(dir, 'logs', 'prometheus.log');
  const child = spawn(
    'prometheus',
    [`--config.file=${file}`, `--storage.tsdb.path=${path.join(dir, 'prometheus')}`, `--web.listen-address=127.0.0.1:${port}`],
    {
      stdio: ['ignore', fs.openSync(log, 'w'), fs.openSync(log, 'a')],
    },
  );
  child.once('error', (e) => console.error(`prometheus: ${e.message} (apt-get install -y prometheus)`));
  procs.push({ name: 'prometheus', role: 'prometheus', pid: child.pid, child, log, url: `http://127.0.0.1:${port}`, urls: {} });
  const url = `http://127.0.0.1:${port}`;
  await until('prometheus to answer', async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200, 60_000);
  return url;
}

/** The sim-engines the agents run, from their shard records: [{ targets, labels }] for file_sd. */
function engineTargets(dir) {
  const out = [];
  for (const n of NODES) {
    const d = path.join(dir, 'agents', n.id, 'shards');
    for (const f of fs.existsSync(d) ? fs.readdirSync(d).filter((x) => x.endsWith('.json')) : []) {
      try {
        const rec = JSON.parse(fs.readFileSync(path.join(d, f), 'utf8'));
        const port = rec.spec?.httpPort ?? rec.spec?.http_port;
        if (port) out.push({ targets: [`127.0.0.1:${port}`], labels: { node: n.id } });
      } catch {
        /* a record being written */
      }
    }
  }
  return out;
}

/** Stops every process (last started first), then drops what `up` made unless --keep. */
async function down(o, state) {
  for (const p of procs.slice().reverse()) {
    if (!p.pid || p.exited !== undefined || p.child.exitCode !== null || p.child.signalCode !== null) continue;
    const exited = new Promise((r) => p.child.once('exit', r));
    p.child.kill('SIGTERM');
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  if (o.keep || !state) return;
  try {
    const { Redis } = require('ioredis');
    const r = new Redis(state.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await r.connect();
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${state.prefix}*`, 'COUNT', 1000);
      if (keys.length) await r.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    r.disconnect();
  } catch (e) {
    console.error(`topology: could not delete the Redis keys ${state.prefix}*: ${e.message}`);
  }
  try {
    const { Client } = require('pg');
    const c = new Client({ connectionString: state.pgUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${state.database} WITH (FORCE)`);
    await c.end();
  } catch (e) {
    console.error(`topology: could not drop database ${state.database}: ${e.message}`);
  }
}

module.exports = { engineTargets };

if (require.main === module) {
  let o;
  try {
    o = parse(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`topology: ${e.message}\n\n${HELP}`);
    process.exit(2);
  }
  if (o.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  o.dir = o.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'llmgw-topology-'));
  let state;
  let stopping = false;
  const stop = async (code) => {
    if (stopping) return;
    stopping = true;
    await down(o, state);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  up(o).then(
    (info) => {
      state = JSON.parse(fs.readFileSync(path.join(info.dir, 'state.json'), 'utf8'));
      process.stdout.write(JSON.stringify(info) + '\n');
      // Engines come and go: keep Prometheus's engine targets current.
      if (info.prometheus)
        setInterval(() => fs.writeFileSync(path.join(info.dir, 'config', 'engines.json'), JSON.stringify(engineTargets(info.dir)) + '\n'), 5000).unref();
    },
    async (e) => {
      process.stderr.write(`topology: ${e.message}\n`);
      const f = path.join(o.dir, 'state.json');
      if (fs.existsSync(f)) state = JSON.parse(fs.readFileSync(f, 'utf8'));
      await stop(1);
    },
  );
}
