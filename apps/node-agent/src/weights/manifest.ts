import { z } from 'zod';

/**
 * A weights manifest: the files of one model with their sizes and sha256
 * digests, as the mirror serves it (docs/models.md, "Sources"). Paths are
 * relative, forward-slashed and may not climb out of the model directory.
 */
export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}
export interface WeightsManifest {
  files: ManifestFile[];
}

const SAFE_PATH = /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._/+-]{1,512}$/;

const manifestSchema = z
  .object({
    files: z
      .array(
        z
          .object({
            path: z.string().regex(SAFE_PATH, 'must be a relative path of letters, digits and . _ / + - that stays inside the model directory'),
            size: z.number().int().min(0),
            sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits'),
          })
          .strict(),
      )
      .min(1, 'a manifest lists at least one file'),
  })
  .passthrough();

/** Validates a parsed manifest; throws an Error naming every bad field. */
export function parseManifest(raw: unknown, from: string): WeightsManifest {
  const r = manifestSchema.safeParse(raw);
  if (!r.success) throw new Error(`weights manifest ${from}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  const seen = new Set<string>();
  for (const f of r.data.files) {
    if (seen.has(f.path)) throw new Error(`weights manifest ${from}: file ${f.path} is listed twice`);
    seen.add(f.path);
  }
  return { files: r.data.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })) };
}

export function manifestBytes(m: WeightsManifest): number {
  return m.files.reduce((a, f) => a + f.size, 0);
}
