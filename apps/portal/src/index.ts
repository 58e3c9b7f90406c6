/**
 * The public entry of the portal app: what a composition (`apps/up`) may use.
 * Everything else in the app is private to it.
 */
export * from './main';
