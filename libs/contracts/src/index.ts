export * from './tenancy';
export * from './loader-options';
