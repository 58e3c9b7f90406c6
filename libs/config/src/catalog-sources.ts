import { z } from 'zod';
import { duration } from './load';

/**
 * The catalog's model sources, LoRA adapters and external providers
 * (docs/models.md). Secrets are never in the catalog: a mirror's or a
 * provider's credential is named by a file or an environment variable.
 */

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const credentialsSchema = z
  .object({
    /** A file holding the token (mode 0600 recommended); trailing whitespace ignored. */
    file: z.string().min(1).optional(),
    /** An environment variable holding the token. */
    env: z.string().regex(ENV_NAME, 'environment names are [A-Za-z_][A-Za-z0-9_]*').optional(),
  })
  .strict()
  .refine((c) => (c.file === undefined) !== (c.env === undefined), 'give exactly one of file or env');

const httpUrl = () =>
  z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'must be an http:// or https:// URL')
    .refine((u) => !/\/\/[^/]*@/.test(u), 'credentials do not belong in the URL: use credentials.file or credentials.env');

/** Where weights come from: exactly one of `path`, `mirror` or `hf` (with `mirror`). */
export const weightsSchema = z
  .object({
    /** A directory on every node; nothing is fetched. */
    path: z.string().min(1).optional(),
    /** HTTP(S) mirror: the directory holding the manifest and the files. */
    mirror: httpUrl().optional(),
    /** The manifest's name under `mirror` (files with sizes and sha256). */
    manifest: z.string().min(1).default('manifest.json'),
    /** A Hugging Face-style repository ("org/name") served by `mirror` as `<mirror>/<repo>/resolve/<revision>/`. */
    hf: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be "org/name"')
      .optional(),
    revision: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/)
      .default('main'),
    credentials: credentialsSchema.optional(),
  })
  .strict()
  .refine((w) => (w.path === undefined) !== (w.mirror === undefined), 'give exactly one of path or mirror')
  .refine((w) => w.hf === undefined || w.mirror !== undefined, 'hf needs mirror (the host serving the repository)');
export type WeightsConfig = z.output<typeof weightsSchema>;

/**
 * The mirror directory and manifest the agent fetches (an `hf` repository is
 * read as `<mirror>/<repo>/resolve/<revision>/` with `llmgw-manifest.json`);
 * undefined for a local `path`.
 */
export function weightsMirror(w: WeightsConfig): { baseUrl: string; manifest: string; credentialsFile?: string; credentialsEnv?: string } | undefined {
  if (!w.mirror) return undefined;
  const mirror = w.mirror.endsWith('/') ? w.mirror : `${w.mirror}/`;
  const baseUrl = w.hf ? new URL(`${w.hf}/resolve/${encodeURIComponent(w.revision)}/`, mirror).toString() : mirror;
  const manifest = w.hf ? 'llmgw-manifest.json' : w.manifest;
  return {
    baseUrl,
    manifest,
    ...(w.credentials?.file ? { credentialsFile: w.credentials.file } : {}),
    ...(w.credentials?.env ? { credentialsEnv: w.credentials.env } : {}),
  };
}

export const adapterSchema = z
  .object({
    /** The adapter's model name as clients send it; `<base>:<name>` also reaches it. */
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1–64 characters of letters, digits and . _ -'),
    weights: weightsSchema,
    /** llama.cpp: the adapter's scale when a request names it. */
    scale: z.number().min(0).max(10).default(1),
  })
  .strict();
export type AdapterConfig = z.output<typeof adapterSchema>;

/** An adapter as the placement spec carries it to the agent: its path, or the mirror to fetch. */
export function adapterLaunch(a: AdapterConfig): { name: string; scale: number; path?: string; weights?: NonNullable<ReturnType<typeof weightsMirror>> } {
  const mirror = weightsMirror(a.weights);
  return { name: a.name, scale: a.scale, ...(mirror ? { weights: mirror } : { path: a.weights.path }) };
}

export const providerSchema = z
  .object({
    /** The OpenAI-compatible API's base URL, up to and including `/v1`. */
    base_url: httpUrl(),
    /** The model's name there (what is sent as `model`). */
    model: z.string().min(1).max(256),
    credentials: credentialsSchema.optional(),
    connect_timeout: duration().default(5_000),
    first_token_timeout: duration().default(60_000),
    total_timeout: duration().default(600_000),
    /** USD per million tokens, for the ledger's cost. */
    price: z
      .object({ input_per_million: z.number().min(0).default(0), output_per_million: z.number().min(0).default(0) })
      .strict()
      .default({ input_per_million: 0, output_per_million: 0 }),
    /** Concurrent requests the router sends it (its "slots"). */
    max_concurrency: z.number().int().min(1).max(100_000).default(64),
  })
  .strict();
export type ProviderConfig = z.output<typeof providerSchema>;
