import type { z } from 'zod';

/**
 * A routing profile or plugin configuration was rejected at load. `issues`
 * lists every problem found, each prefixed with where it is
 * (`profiles.chat.scorers.foo: ...`). Thrown only while building profiles,
 * never on the request path.
 */
export class SchedulingConfigError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`invalid scheduling configuration:\n  - ${issues.join('\n  - ')}`);
    this.name = 'SchedulingConfigError';
  }
}

/** "a.b: message" lines for each zod issue, prefixed with `where`. */
export function zodIssues(where: string, error: z.ZodError): string[] {
  return error.issues.map((i) => {
    const path = i.path.length > 0 ? `${where}.${i.path.map(String).join('.')}` : where;
    // A rejected record key carries the reason in nested issues.
    const nested = 'issues' in i && Array.isArray(i.issues) ? (i.issues as { message: string }[]).map((n) => n.message) : [];
    return nested.length > 0 ? `${path}: ${i.message} (${nested.join('; ')})` : `${path}: ${i.message}`;
  });
}
