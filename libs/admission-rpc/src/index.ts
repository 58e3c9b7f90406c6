export * from './proto';
export * from './reason';
export * from './metrics';
export * from './server';
export * from './client';
export * from './remote';
export * from './credits';
export * from './served';
