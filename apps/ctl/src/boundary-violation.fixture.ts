// Deliberately broken: an app importing another app. Linted on purpose by
// libs/testing/src/boundaries.spec.ts, which expects the import to be refused.
import { main } from '../../router/src/main';

export const violation = main;
