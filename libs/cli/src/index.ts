export * from './listen';
export * from './skeleton';
