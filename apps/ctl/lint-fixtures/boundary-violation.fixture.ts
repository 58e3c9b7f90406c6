// Deliberately broken: an app importing another app, by relative path and by
// the other app's public entry (only a composition may use that). Excluded from
// normal lint and from the build; libs/testing/src/boundaries.spec.ts lints it
// on purpose and expects both imports to be refused.
import { main } from '../../router/src/main';
import { start } from '@llmgw/app-router';

export const violation = [main, start];
