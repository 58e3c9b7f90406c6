export * from './catalogue';
export * from './llmgw-error';
export * from './docs';
