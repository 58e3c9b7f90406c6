export * from './keys';
export * from './limits';
export * from './pricing';
export * from './periods';
