import { readFileSync } from 'node:fs';

/**
 * Where a model's weights come from, as the agent needs it (docs/models.md,
 * "Sources"): a local path the engine reads as is, or an HTTP(S) mirror
 * serving a manifest and the files beside it (the catalog resolves a Hugging
 * Face-style repository to its mirror directory).
 */
export type WeightsSource = { kind: 'path'; path: string } | { kind: 'mirror'; baseUrl: string; manifest: string; credentials?: Credentials };

/** Where the mirror's bearer token is read from: never the catalog itself. */
export interface Credentials {
  /** A file holding the token (trailing whitespace ignored). */
  file?: string;
  /** An environment variable holding the token. */
  env?: string;
}

/** The directory URL files are fetched from (ends with `/`), and the manifest's URL. */
export function sourceUrls(src: Exclude<WeightsSource, { kind: 'path' }>): { base: string; manifest: string } {
  const base = src.baseUrl.endsWith('/') ? src.baseUrl : `${src.baseUrl}/`;
  return { base, manifest: new URL(src.manifest, base).toString() };
}

/** A stable directory name for a source in the cache. */
export function cacheKey(src: Exclude<WeightsSource, { kind: 'path' }>): string {
  const { base } = sourceUrls(src);
  const u = new URL(base);
  const tail = `${u.host}${u.pathname}`.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '');
  return tail.slice(-120);
}

/**
 * The Authorization header for the mirror, from the credentials' file or
 * environment variable; none when neither is set. The token is never logged:
 * errors name where it was looked for, not what was found.
 */
export function authHeader(c: Credentials | undefined, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (!c) return {};
  let token: string | undefined;
  if (c.file) {
    try {
      token = readFileSync(c.file, 'utf8').trim();
    } catch (e) {
      throw new Error(`mirror credentials: cannot read ${c.file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  } else if (c.env) {
    token = env[c.env]?.trim();
    if (!token) throw new Error(`mirror credentials: environment variable ${c.env} is not set`);
  }
  return token ? { authorization: `Bearer ${token}` } : {};
}
