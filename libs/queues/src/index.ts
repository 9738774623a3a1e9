export * from './agent-run.queue';
export * from './queues.module';
export * from './run-cancellation';
export * from './source-sync.queue';
