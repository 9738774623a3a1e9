export * from './parley-api.error';
export * from './parley-client';
export * from './types';
