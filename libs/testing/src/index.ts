export {};
export * from './process'
