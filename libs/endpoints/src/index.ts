export * from './types';
export * from './static-source';
export * from './redis-source';
export * from './memory-source';
export * from './redis-contract';
export * from './scraper';
export * from './engine-secret';
export * from './coalesced-reload';
