export * from './proto';
export * from './fleet-view';
export * from './control-nodes';
export * from './server';
export * from './client';
export * from './remote-node-admin';
