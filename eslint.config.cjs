// Lint: TypeScript rules plus Nx module boundaries, enforced through tags.
//   type:app       — deployables; nothing may import them
//   type:domain    — pure logic; imports no I/O package
//   type:platform  — adapters to the outside world
//   type:contracts — wire contracts and schemas
//   type:testing   — harnesses for tests and benchmarks
//   type:composition — runs several apps in one process (apps/up); the only
//                    projects that may import an app, and only its public
//                    entry `@llmgw/app-<name>` (apps/<name>/src/index.ts)
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');
const fs = require('node:fs');
const path = require('node:path');

const IO_PACKAGES = [
  'fastify',
  '@fastify/*',
  '@grpc/*',
  'ioredis',
  'pg',
  'kysely',
  'prom-client',
  'pino',
  'undici',
  '@electric-sql/*',
  'node:http',
  'node:net',
  'node:fs',
  'node:child_process',
  'http',
  'net',
  'fs',
  'child_process',
];

const boundaries = {
  enforceBuildableLibDependency: false,
  allow: [],
  depConstraints: [
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:contracts', 'type:testing'] },
    { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:contracts'] },
    { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:contracts'], bannedExternalImports: IO_PACKAGES },
    { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain'] },
    { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:contracts', 'type:testing'] },
    { sourceTag: 'type:composition', onlyDependOnLibsWithTags: ['type:domain', 'type:platform', 'type:contracts', 'type:testing'] },
  ],
};

// Nx refuses every import of an application project. A composition's imports
// of app entry points are let through by `allow`, in its own files only; a
// deep import (`@llmgw/app-router/x`, or a relative path into apps/) is still
// refused, and so is an app entry anywhere else.
const APP_ENTRY = '^@llmgw/app-[a-z0-9-]+$'; // a RegExp: the entry itself, nothing below it
const compositionRoots = fs
  .readdirSync(path.join(__dirname, 'apps'))
  .filter((name) => {
    const file = path.join(__dirname, 'apps', name, 'project.json');
    return fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, 'utf8')).tags ?? []).includes('type:composition');
  })
  .map((name) => `apps/${name}/**/*.ts`);

// The service host owns the outside world (docs/operations.md, "Redis, leader
// locks and lost dependencies"): an app gets its Redis clients from ctx.redis, never constructs one.
// Only `import type` from ioredis, no require/import() of it, no duplicate().
// Tests (*.spec.ts, test/) may build their own clients.
const APP_SOURCES = ['apps/*/src/**/*.ts', 'apps/*/lint-fixtures/**/*.ts'];
const APP_TESTS = ['**/*.spec.ts', 'apps/*/test/**'];
const NO_REDIS_CLIENT = 'Apps get Redis clients from the service host (ctx.redis(purpose, url, { kind })); only `import type` from ioredis.';
const noRedisInApps = {
  files: APP_SOURCES,
  ignores: APP_TESTS,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', { paths: [{ name: 'ioredis', message: NO_REDIS_CLIENT, allowTypeImports: true }] }],
    'no-restricted-syntax': [
      'error',
      { selector: "CallExpression[callee.name='require'][arguments.0.value='ioredis']", message: NO_REDIS_CLIENT },
      { selector: "ImportExpression[source.value='ioredis']", message: NO_REDIS_CLIENT },
      {
        selector: "CallExpression[callee.property.name='duplicate'][arguments.length<=1]",
        message: 'A second Redis connection comes from ctx.redis (a kind per purpose), not from duplicate().',
      },
    ],
  },
};

// Apps do not read TLS files: the service host does (ctx.grpcServer for a
// server block, ctx.clientTls / clientTls for a client block).
const llmgw = require('./tools/eslint/llmgw-plugin.cjs');
const noTlsFileReads = {
  files: APP_SOURCES,
  ignores: APP_TESTS,
  plugins: { llmgw },
  rules: { 'llmgw/no-tls-file-reads': 'error' },
};

module.exports = [
  { ignores: ['**/node_modules/**', '**/dist/**', '**/*.fixture.ts', 'libs/contracts/src/generated/**', '**/*.cjs', '**/*.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': ['error', boundaries],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-console': 'off',
    },
  },
  ...(compositionRoots.length
    ? [{ files: compositionRoots, rules: { '@nx/enforce-module-boundaries': ['error', { ...boundaries, allow: [APP_ENTRY] }] } }]
    : []),
  noRedisInApps,
  noTlsFileReads,
];
module.exports.boundaries = boundaries;
module.exports.noRedisInApps = noRedisInApps;
module.exports.noTlsFileReads = noTlsFileReads;
