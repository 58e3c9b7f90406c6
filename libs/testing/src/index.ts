export * from './ports';
export * from './process';
export * from './sim-agent';
export * from './wait';
export * from './redis-server';
