export * from './redis-layout';
export * from './run-event';
export * from './run-event.writer';
export * from './run-event.reader';
export * from './run-cancellation';
export * from './shared-subscriber';
export * from './stored-reply';
