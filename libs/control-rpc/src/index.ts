export * from './proto';
export * from './audit';
export * from './nodes';
export * from './node-page';
export * from './inventory-node-admin';
export * from './models';
export * from './client';
export * from './quotas';
