// Deliberately broken: an app reading its client TLS files itself instead of
// taking them from the service host. Linted on purpose by
// libs/testing/src/boundaries.spec.ts (with the rule turned on); a file that
// reads files but names no TLS is let through.
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs';

export function clientTls(cfg: { accounting_tls: { ca: string; cert: string } }) {
  const read = (f: string) => readFileSync(f);
  return { ca: read(cfg.accounting_tls.ca), cert: fs.readFileSync(cfg.accounting_tls.cert) };
}
