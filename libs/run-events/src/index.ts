export * from './keys';
export * from './run-event';
