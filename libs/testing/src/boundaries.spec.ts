import { ESLint } from 'eslint';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// Keeps the module-boundary rules honest: if a config change ever stops them
// from firing, these deliberate violations stop being reported and this fails.
// The violations live in `<project>/lint-fixtures/` (inside the project, so
// the rule knows whose they are; outside src/, so nothing builds them).
const root = join(__dirname, '../../..');

async function lint(file: string) {
  const path = join(root, file);
  // A moved fixture must fail here, not lint nothing.
  expect(existsSync(path)).toBe(true);
  const eslint = new ESLint({ cwd: root, ignore: false });
  const [result] = await eslint.lintFiles([path]);
  return result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => `${m.line}: ${m.message}`);
}

describe('module boundaries', () => {
  it('refuse I/O packages and platform libs in a pure domain lib', async () => {
    const messages = await lint('libs/scheduling/lint-fixtures/boundary-violation.fixture.ts');
    expect(messages.some((m) => /ioredis/.test(m))).toBe(true);
    expect(messages.some((m) => /type:platform|observability|not allowed|can only depend/i.test(m))).toBe(true);
    expect(messages.length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('refuse one app importing another, by path and by its public entry', async () => {
    const messages = await lint('apps/ctl/lint-fixtures/boundary-violation.fixture.ts');
    expect(messages).toEqual([expect.stringMatching(/^5: /), expect.stringMatching(/^6: Imports of apps are forbidden/)]);
  }, 120_000);

  it('let the composition (apps/up) import app entries, and nothing below them', async () => {
    expect(await lint('apps/up/src/stack.ts')).toEqual([]);
    const messages = await lint('apps/up/lint-fixtures/deep-import.fixture.ts');
    expect(messages).toEqual([expect.stringMatching(/^5: .*relative or absolute path/), expect.stringMatching(/^6: Imports of apps are forbidden/)]);
  }, 120_000);
});

// The service host owns the outside world: no app constructs a Redis client
// (and, once turned on, no app reads a TLS file). Same style: deliberate
// violations in lint-fixtures/, which must keep being reported.
async function lintWith(file: string, rules: string[], overrideConfig?: unknown) {
  const path = join(root, file);
  expect(existsSync(path)).toBe(true);
  const eslint = new ESLint({ cwd: root, ignore: false, overrideConfig: overrideConfig as never });
  const [result] = await eslint.lintFiles([path]);
  return result.messages.filter((m) => rules.includes(m.ruleId ?? '')).map((m) => `${m.line}: ${m.message}`);
}

describe('the service host owns Redis and TLS', () => {
  it('refuses an app constructing an ioredis client: value import, require, import(), duplicate(); lets a type import through', async () => {
    const messages = await lintWith('apps/router/lint-fixtures/redis-client.fixture.ts', ['@typescript-eslint/no-restricted-imports', 'no-restricted-syntax']);
    expect(messages).toEqual([
      expect.stringMatching(/^5: .*ctx\.redis/),
      expect.stringMatching(/^10: .*duplicate/),
      expect.stringMatching(/^11: .*ctx\.redis/),
      expect.stringMatching(/^12: .*ctx\.redis/),
    ]);
  }, 120_000);

  it('finds no Redis construction in any app source today', async () => {
    const eslint = new ESLint({ cwd: root });
    const results = await eslint.lintFiles(['apps/*/src/**/*.ts']);
    const found = results.flatMap((r) =>
      r.messages
        .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
        .map((m) => `${r.filePath}:${m.line}: ${m.message}`),
    );
    expect(found).toEqual([]);
  }, 300_000);

  it('(rule ready, not on yet) refuses reading files in an app file that handles TLS, not elsewhere', async () => {
    const { noTlsFileReads } = require(join(root, 'eslint.config.cjs'));
    const tls = await lintWith('apps/router/lint-fixtures/tls-file-read.fixture.ts', ['llmgw/no-tls-file-reads'], noTlsFileReads);
    expect(tls).toEqual([expect.stringMatching(/^9: .*service host/), expect.stringMatching(/^10: .*service host/)]);
    expect(await lintWith('apps/router/lint-fixtures/plain-file-read.fixture.ts', ['llmgw/no-tls-file-reads'], noTlsFileReads)).toEqual([]);
  }, 120_000);
});
