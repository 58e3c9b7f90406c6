export * from './proto';
export * from './client';
export * from './server';
export * from './principal';
