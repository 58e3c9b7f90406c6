// Shared Jest settings: @swc/jest for speed (type errors are caught by the
// typecheck target instead), @llmgw/* aliases resolved to library sources.
const path = require('node:path');
const root = __dirname;

module.exports = (projectDir) => ({
  displayName: path.relative(root, projectDir),
  rootDir: projectDir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  moduleNameMapper: {
    // An app's public entry (only compositions such as apps/up import these).
    '^@llmgw/app-([^/]+)$': path.join(root, 'apps/$1/src/index.ts'),
    '^@llmgw/([^/]+)$': path.join(root, 'libs/$1/src/index.ts'),
    '^@llmgw/([^/]+)/(.*)$': path.join(root, 'libs/$1/src/$2'),
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // content-disposition (required by @fastify/static, the portal's) ships ES modules only: compiled like the sources.
  transformIgnorePatterns: ['/node_modules/(?!content-disposition/)'],
  // Generous on purpose: on a loaded 2-core machine a PGlite start or a process spawn alone can take
  // tens of seconds. A test that hangs still fails, loudly, just later.
  testTimeout: 120_000,
});
