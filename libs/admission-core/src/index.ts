export * from './types';
export * from './saturation';
