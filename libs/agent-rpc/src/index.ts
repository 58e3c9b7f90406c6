export * from './proto';
export * from './backoff';
export * from './server';
export * from './client';
