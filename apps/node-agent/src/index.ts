/**
 * The public entry of the node-agent app: what a composition (`apps/up`) may use.
 * Only projects tagged `type:composition` may import it (eslint.config.cjs);
 * everything else in the app is private to it.
 */
export * from './main';
