export {};
export * from './process';
export * from './sim-agent';
