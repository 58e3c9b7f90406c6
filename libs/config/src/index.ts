export * from './load';
export * from './router';
export * from './admission';
export * from './admission-core';
export * from './accounting';
export * from './sim-engine';
export * from './catalog';
export * from './placement-scheduler';
