import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { EndpointInfo } from './types';
import { LlmgwError } from '@llmgw/errors';

/**
 * Per-replica engine secrets (docs/placement.md, "Engine secrets"). One
 * cluster engine key — 32 random bytes in a 0600 file named by
 * `engine_key_file` on the placement-scheduler and on every router — and the
 * replica id give each replica its own secret:
 *
 *   secret = base64url(HMAC-SHA256(key, "llmgw-engine-secret-v1:" + replica_id))
 *
 * The scheduler sends it to the agent in the ShardSpec (over the inventory
 * link), the agent hands it to the engine as its API key, and a router derives
 * the same value from the replica id in the endpoint record. Neither Redis
 * nor any log line carries the secret.
 */
const LABEL = 'llmgw-engine-secret-v1:';

export const ENGINE_KEY_BYTES = 32;

/** The replica's engine secret under `key`. */
export function deriveEngineSecret(key: Buffer, replicaId: string): string {
  if (key.length < ENGINE_KEY_BYTES) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', `the engine key must be at least ${ENGINE_KEY_BYTES} bytes`);
  if (!replicaId) throw new LlmgwError('LLMGW_ERR_INVALID_ARGUMENT', 'a replica id is required to derive its engine secret');
  return createHmac('sha256', key)
    .update(LABEL + replicaId)
    .digest('base64url');
}

/**
 * Reads an engine key file: 64 hex characters (what `createEngineKeyFile`
 * writes; surrounding whitespace ignored) or at least 32 raw bytes. Refuses a
 * file group or others can read.
 */
export function readEngineKeyFile(path: string): Buffer {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new LlmgwError(
      'LLMGW_ERR_FAILED_PRECONDITION',
      `engine_key_file ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  if (!st.isFile()) throw new LlmgwError('LLMGW_ERR_FAILED_PRECONDITION', `engine_key_file ${path}: not a file`);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new LlmgwError(
      'LLMGW_ERR_FAILED_PRECONDITION',
      `engine_key_file ${path}: readable by group or others (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  const raw = readFileSync(path);
  const text = raw.toString('latin1').trim();
  if (/^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0 && text.length >= ENGINE_KEY_BYTES * 2) return Buffer.from(text, 'hex');
  if (raw.length >= ENGINE_KEY_BYTES) return raw;
  throw new LlmgwError(
    'LLMGW_ERR_FAILED_PRECONDITION',
    `engine_key_file ${path}: must hold ${ENGINE_KEY_BYTES} random bytes (raw, or ${ENGINE_KEY_BYTES * 2} hex characters); it has ${raw.length} bytes`,
  );
}

/** A static endpoint's `api_key_file`: its trimmed content; refused when empty or readable by group or others. */
export function readApiKeyFile(path: string): string {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new LlmgwError(
      'LLMGW_ERR_FAILED_PRECONDITION',
      `api_key_file ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0)
    throw new LlmgwError(
      'LLMGW_ERR_FAILED_PRECONDITION',
      `api_key_file ${path}: readable by group or others (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it`,
    );
  const key = readFileSync(path, 'utf8').trim();
  if (!key || /\s/.test(key)) throw new LlmgwError('LLMGW_ERR_FAILED_PRECONDITION', `api_key_file ${path}: must hold one API key (no whitespace)`);
  return key;
}

/** Creates `path` with a new random key (hex, mode 0600) unless it exists; returns the key. */
export function createEngineKeyFile(path: string): Buffer {
  if (!existsSync(path)) {
    try {
      writeFileSync(path, `${randomBytes(ENGINE_KEY_BYTES).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return readEngineKeyFile(path);
}

/**
 * What a router sends an engine as `authorization`: for a placed replica
 * (`auth: replica-key`) its derived secret, for a static endpoint with an
 * `api_key_file` that key, else nothing. The client's own authorization
 * never reaches an engine: the router builds upstream headers afresh.
 * Derived secrets are cached per replica id.
 */
export class EngineAuthorizer {
  private readonly cache = new Map<string, string>();
  private readonly warned = new Set<string>();
  constructor(
    private readonly key: Buffer | undefined,
    private readonly onMissingKey?: (endpointId: string) => void,
  ) {}

  /** Whether a cluster engine key is configured. */
  get hasKey(): boolean {
    return this.key !== undefined;
  }

  /** The `authorization` header value for `e`, or undefined to send none. */
  header(e: Pick<EndpointInfo, 'id' | 'auth' | 'apiKey'>): string | undefined {
    if (e.auth === 'replica-key') {
      if (!this.key) {
        if (!this.warned.has(e.id)) {
          this.warned.add(e.id);
          this.onMissingKey?.(e.id);
        }
        return undefined;
      }
      let h = this.cache.get(e.id);
      if (h === undefined) {
        h = `Bearer ${deriveEngineSecret(this.key, e.id)}`;
        if (this.cache.size > 10_000) this.cache.clear();
        this.cache.set(e.id, h);
      }
      return h;
    }
    return e.apiKey ? `Bearer ${e.apiKey}` : undefined;
  }
}
