// Deliberately broken: the composition reaching past an app's public entry,
// by relative path and by a path below the entry. Excluded from normal lint;
// libs/testing/src/boundaries.spec.ts lints it on purpose and expects both
// imports to be refused (while apps/up/src, which uses the entries only, is clean).
import { main } from '../../router/src/main';
import { start } from '@llmgw/app-router/main';

export const violation = [main, start];
