export * from './types';
export * from './saturation';
export * from './clock';
export * from './config';
export * from './recorder';
export * from './controller';
export * from './pools';
export * from './slots';
