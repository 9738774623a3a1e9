export * from './codec';
export * from './keys';
export * from './run-event';
