export * from './types';
export * from './parser';
export * from './mappings';
export * from './extract';
