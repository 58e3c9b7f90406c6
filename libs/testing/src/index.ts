export * from './ports';
export * from './process';
export * from './sim-agent';
export * from './wait';
export * from './endpoint-contract';
export * from './pki';
export * from './redis-server';
export * from './fault-proxy';
