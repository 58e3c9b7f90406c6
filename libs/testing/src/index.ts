export {};
export * from './process';
