import { ESLint } from 'eslint';
import { join } from 'node:path';

// Keeps the module-boundary rule honest: if a config change ever stops it
// from firing, these deliberate violations stop being reported and this fails.
const root = join(__dirname, '../../..');

async function lint(file: string) {
  const eslint = new ESLint({ cwd: root, ignore: false });
  const [result] = await eslint.lintFiles([join(root, file)]);
  return result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
}

describe('module boundaries', () => {
  it('refuse I/O packages and platform libs in a pure domain lib', async () => {
    const messages = await lint('libs/scheduling/src/boundary-violation.fixture.ts');
    expect(messages.some((m) => /ioredis/.test(m))).toBe(true);
    expect(messages.some((m) => /type:platform|observability|not allowed|can only depend/i.test(m))).toBe(true);
    expect(messages.length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('refuse one app importing another', async () => {
    const messages = await lint('apps/ctl/src/boundary-violation.fixture.ts');
    expect(messages.length).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
