import type { ApiKeyRow } from '@llmgw/db';
import { LlmgwError } from '@llmgw/errors';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The stored result of a CreateKey: the row and the secret sealed with the process's in-memory key. */
export interface StoredKey {
  row: ApiKeyRow;
  sealed: string;
}

/** A process-local key: a sealed secret can be opened by this process only (see TenancyStore.createKey). */
export class KeySeal {
  private readonly sealKey = randomBytes(32);

  seal(secret: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const body = Buffer.concat([c.update(secret, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64');
  }

  unseal(stored: StoredKey): string {
    try {
      const raw = Buffer.from(stored.sealed, 'base64');
      const d = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    } catch {
      throw new LlmgwError(
        'LLMGW_ERR_FAILED_PRECONDITION',
        `key ${stored.row.id} (${stored.row.key_prefix}…) was created by this request, but its secret can no longer be shown (accounting restarted since); revoke it and create another`,
      );
    }
  }
}
