// One-off project scaffolder: writes project.json, tsconfig, jest config and a
// stub entry for each app and lib, and registers the @llmgw/* path aliases.
// Re-running it only adds what is missing; it never overwrites a file.
const fs = require('node:fs');
const path = require('node:path');
const root = path.resolve(__dirname, '../..');

const apps = {
  router: 'The data path: OpenAI API, filter→score→pick, streaming proxy, retries, usage emission.',
  admission: 'Decides when a request may run: band queues, saturation, fairness; grants leases over gRPC.',
  'placement-scheduler': 'Catalog, placement, reconciler and the control admin API used by ctl.',
  inventory: 'Fleet-facing port: agents dial in, node/GPU/fabric/shard state, shard command relay.',
  accounting: 'Tenancy, keys, limits, budgets, usage ingestion, rollups and audit log.',
  'node-agent': 'Runs on every GPU node: discovery, engine supervision, reports to inventory.',
  'sim-engine': 'A fake OpenAI-compatible engine with vLLM-style /metrics, for tests and benchmarks.',
  ctl: 'The operator CLI (`llmgw ctl …`) over the admin gRPC APIs.',
};
const libs = {
  contracts: ['type:contracts', 'Generated gRPC types from proto/ and the OpenAI request/response schemas.'],
  errors: ['type:domain', 'The error catalogue: every LLMGW_ERR_* code with its HTTP status, gRPC code and OpenAI type.'],
  config: ['type:platform', 'zod schemas for every config file, YAML + env loading.'],
  'engine-metrics': ['type:domain', 'Prometheus text parsing and the per-engine metric contract (docs/router.md, "Scraping").'],
  scheduling: ['type:domain', 'The filter/scorer/picker pipeline and routing profiles (pure).'],
  'admission-core': ['type:domain', 'Band queues, saturation detector, fairness (pure).'],
  prefix: ['type:domain', 'Session ring (tier 0), approximate radix tree (tier 1), KV block index (tier 2).'],
  placement: ['type:domain', 'Pool grouping, placement and explain (pure).'],
  stores: ['type:platform', 'Redis and in-process implementations of every shared-state interface.'],
  db: ['type:platform', 'kysely schema, migrations and the PGlite dialect.'],
  grpc: ['type:platform', 'mTLS credentials, the private CA, gRPC client/server helpers.'],
  observability: ['type:platform', 'pino logger with request ids and redaction, prom-client registry, tracing.'],
  testing: ['type:testing', 'Process and fleet harness for integration tests and benchmarks.'],
};

function write(file, content) {
  const p = path.join(root, file);
  if (fs.existsSync(p)) return;
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

function project(dir, name, tags, kind, description) {
  const targets = {
    lint: { executor: 'nx:run-commands', options: { command: `eslint --max-warnings=0 ${dir}` } },
    typecheck: { executor: 'nx:run-commands', options: { command: `tsc -p ${dir}/tsconfig.json --noEmit` } },
    test: {
      executor: 'nx:run-commands',
      options: { command: `node --experimental-vm-modules node_modules/jest/bin/jest.js -c ${dir}/jest.config.cjs --passWithNoTests=false` },
    },
  };
  if (kind === 'app') {
    targets.build = {
      executor: 'nx:run-commands',
      options: { command: `node tools/scripts/build-app.cjs ${name}` },
      outputs: [`{workspaceRoot}/dist/apps/${name}`],
    };
  }
  write(
    `${dir}/project.json`,
    JSON.stringify(
      {
        name,
        $schema: '../../node_modules/nx/schemas/project-schema.json',
        sourceRoot: `${dir}/src`,
        projectType: kind === 'app' ? 'application' : 'library',
        tags,
        targets,
      },
      null,
      2,
    ) + '\n',
  );
  write(
    `${dir}/tsconfig.json`,
    JSON.stringify(
      {
        extends: '../../tsconfig.base.json',
        include: ['src/**/*.ts'],
      },
      null,
      2,
    ) + '\n',
  );
  write(`${dir}/jest.config.cjs`, `module.exports = require('../../jest.preset.cjs')(__dirname);\n`);
  write(`${dir}/README.md`, `# ${kind === 'app' ? name : '@llmgw/' + name}\n\n${description}\n`);
}

for (const [name, desc] of Object.entries(apps)) {
  project(`apps/${name}`, name, ['type:app', `scope:${name}`], 'app', desc);
}
for (const [name, [tag, desc]] of Object.entries(libs)) {
  project(`libs/${name}`, name, [tag], 'lib', desc);
  write(`libs/${name}/src/index.ts`, `export {};\n`);
}

const tsPath = path.join(root, 'tsconfig.base.json');
const ts = JSON.parse(fs.readFileSync(tsPath, 'utf8'));
for (const name of Object.keys(libs)) ts.compilerOptions.paths[`@llmgw/${name}`] = [`./libs/${name}/src/index.ts`];
fs.writeFileSync(tsPath, JSON.stringify(ts, null, 2) + '\n');
