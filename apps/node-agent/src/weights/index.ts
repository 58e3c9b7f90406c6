export * from './cache';
export * from './download';
export * from './manifest';
export * from './progress';
export * from './source';
export * from './throttle';
