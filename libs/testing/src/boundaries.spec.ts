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
