// Lint: TypeScript rules plus Nx module boundaries, enforced through tags.
//   type:app       — deployables; nothing may import them
//   type:domain    — pure logic; imports no I/O package
//   type:platform  — adapters to the outside world
//   type:contracts — wire contracts and schemas
//   type:testing   — harnesses for tests and benchmarks
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');

const IO_PACKAGES = [
  'fastify', '@fastify/*', '@grpc/*', 'ioredis', 'pg', 'kysely', 'prom-client', 'pino',
  'undici', '@electric-sql/*', 'node:http', 'node:net', 'node:fs', 'node:child_process',
  'http', 'net', 'fs', 'child_process',
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
  ],
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
];
module.exports.boundaries = boundaries;
