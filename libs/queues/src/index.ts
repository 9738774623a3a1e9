export * from './agent-run.queue';
export * from './queues.module';
export * from './run-cancellation';
