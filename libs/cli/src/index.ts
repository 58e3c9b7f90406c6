export * from './listen';
export * from './signals';
