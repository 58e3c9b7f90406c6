export * from './logger';
export * from './metrics';
export * from './request-id';
export * from './tracing';
export * from './version';
export * from './dependency';
