export * from './listen';
export * from './skeleton';
export * from './signals';
