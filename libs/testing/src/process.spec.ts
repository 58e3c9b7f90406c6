import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot, spawnRole } from './process';

describe('spawnRole', () => {
  it('finds the repository root from anywhere below it', () => {
    const root = findRepoRoot(__dirname);
    expect(existsSync(join(root, 'bin', 'llmgw.cjs'))).toBe(true);
    expect(() => findRepoRoot('/')).toThrow(/bin\/llmgw.cjs not found/);
  });

  it('rejects with the output when the role exits before listening', async () => {
    await expect(spawnRole('no-such-role')).rejects.toThrow(/exited \(2\) before listening[\s\S]*unknown role "no-such-role"/);
  });

  it('rejects and kills the child when no listening line comes in time', async () => {
    // At --log-level silent sim-engine never announces itself.
    await expect(spawnRole('sim-engine', ['--port', '0', '--log-level', 'silent'], { timeoutMs: 1500 })).rejects.toThrow(/no "listening" line within 1500 ms/);
  }, 20_000);
});
