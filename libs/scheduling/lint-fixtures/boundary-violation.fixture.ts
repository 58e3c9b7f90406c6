// Deliberately broken: a pure domain lib importing an I/O package and a
// platform lib. Excluded from normal lint and from the build;
// libs/testing/src/boundaries.spec.ts lints it on purpose and expects both
// imports to be refused.
import Redis from 'ioredis';
import { createRegistry } from '@llmgw/observability';

export const violation = [Redis, createRegistry];
