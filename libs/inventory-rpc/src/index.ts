export * from './proto';
export * from './fleet-view';
export * from './server';
export * from './client';
