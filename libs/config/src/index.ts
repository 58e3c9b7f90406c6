export * from './load';
export * from './router';
