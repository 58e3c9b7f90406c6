import { randomBytes } from 'node:crypto';
import type { AccountStore } from './store';

/**
 * The first admin, for `llmgw up` (docs/portal.md): made on the first start
 * with a random password, returned then and never again (only its scrypt
 * hash is stored); later starts find an account and return nothing.
 */
export async function ensureFirstAdmin(accounts: AccountStore, email = 'admin@llmgw.local', projectId?: string): Promise<{ email: string; password?: string }> {
  if ((await accounts.list()).length) return { email };
  const password = randomBytes(15).toString('base64url');
  await accounts.create('llmgw up (bootstrap)', { email, name: 'Administrator', password, role: 'admin', projectId });
  return { email, password };
}
