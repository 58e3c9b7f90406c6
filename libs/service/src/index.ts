export * from './admin';
export * from './command';
export * from './host';
export * from './listen';
export * from './profile';
export * from './shutdown';
export * from './tracing';
export * from './redis';
