export * from './schema';
export * from './migrations';
export * from './pglite-dialect';
export * from './create-db';
export * from './pglite-template';
export * from './errors';
export * from './capacity-profiles';
