// Deliberately broken: an app wiring Redis by hand instead of asking the
// service host (ctx.redis). Excluded from normal lint and from the build;
// libs/testing/src/boundaries.spec.ts lints it on purpose and expects each
// construction to be refused, and the type-only import to be let through.
import { Redis } from 'ioredis';
import type { Redis as RedisType } from 'ioredis';

export function violations(url: string, existing: RedisType): unknown[] {
  const a = new Redis(url);
  const b = existing.duplicate();
  const c = require('ioredis');
  const d = import('ioredis');
  return [a, b, c, d];
}
