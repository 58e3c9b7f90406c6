export * from './credentials';
export * from './errors';
export * from './metadata';
export * from './deadline';
export * from './server';
export * from './unary';
export * from './ca';
