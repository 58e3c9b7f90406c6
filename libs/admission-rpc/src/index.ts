export * from './proto';
export * from './wire';
export * from './metrics';
export * from './server';
export * from './client';
export * from './remote';
export * from './credits';
