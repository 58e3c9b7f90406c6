export {};
export * from './leader-lock';
export * from './leader-lock-memory';
export * from './leader-lock-redis';
